/**
 * The typed tool definition (INTERFACE.md 2.2) that the rest of the domain reads: what definition.ts makes of a
 * definition as sent or stored, and what render/ renders a job's command from. Types only, so that both can import
 * them without importing each other.
 */
import type { JsonObject } from '../json.js';

export type ParameterType = 'string' | 'integer' | 'number' | 'flag';

export interface PortDefinition {
  name: string;
  formats: string[];
  minitems: number;
  maxitems: number;
  required: boolean;
  prefix: string;
  separator: string;
  itemSeparator: string;
  /** `stdin` for an input, `stdout` for an output. */
  stream: boolean;
  hint: string;
}

export interface ParameterDefinition {
  name: string;
  type: ParameterType;
  /** The declared type word as written (e.g. `float`), for templates shown to users. */
  typeName: string;
  default: unknown;
  required: boolean;
  variable: boolean;
  minvalue?: number;
  maxvalue?: number;
  hint: string;
  prefix: string;
  separator: string;
}

export interface Resources {
  cpu: number;
  memMb: number;
  diskMb: number;
  network: boolean;
}

export interface ToolDefinition {
  alias: string;
  category: string;
  description: string;
  cmdTemplate: string;
  image: string;
  inputs: Record<string, PortDefinition>;
  outputs: Record<string, PortDefinition>;
  parameters: Record<string, ParameterDefinition>;
  resources: Resources;
  /** The tool's retry policy as written (docs/tasks.md, "Retries"), or null for the server's default. */
  retry: JsonObject | null;
  /** Whether its jobs may be satisfied from the call cache (docs/tasks.md, "Call caching"); default true. */
  callCaching: boolean;
}
