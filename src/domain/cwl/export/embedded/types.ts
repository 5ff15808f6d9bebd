import type { ToolDefinition } from '../../../tools/definition.js';

/**
 * What an exported tool's expressions hand to the embedded code (embedded/index.ts): static descriptions the exporter
 * writes into the document as JSON, and the values a CWL runner gives every expression.
 */

/** A CWL File as a runner hands it to expressions (only what the embedded code reads). */
export interface CwlFile {
  class: 'File';
  basename?: string;
  path?: string;
  location?: string;
}

/** The `inputs` object of a CWL expression. */
export type CwlInputs = Record<string, unknown>;

/** The `runtime` object of a CWL expression (only what the embedded code reads). */
export interface CwlRuntime {
  outdir: string;
  cores: number;
  ram: number;
  outdirSize: number;
}

/** Where a tool's files are: each port, with the CWL input that holds its files or its file names. */
export interface EmbeddedLayout {
  /** `name:version` of the gdflow tool, for messages. */
  tool: string;
  /** gdflow input port → the CWL input holding its files, and how many it takes. */
  inputs: Record<string, { id: string; minitems: number; maxitems: number }>;
  /** gdflow output port → the CWL input holding the names of its files, its formats and how many it makes. */
  outputs: Record<string, { names: string; formats: string[]; minitems: number; maxitems: number }>;
}

/** The part of a gdflow tool definition that makes its command (domain/render/); resources come from the runner. */
export type EmbeddedDefinition = Pick<ToolDefinition, 'cmdTemplate' | 'image' | 'inputs' | 'outputs' | 'parameters'> & { network: boolean };

/** What the command expression carries: the layout, the definition, and the CWL input of each parameter. */
export interface EmbeddedTool {
  layout: EmbeddedLayout;
  definition: EmbeddedDefinition;
  parameters: Record<string, string>;
}

/** An entry of InitialWorkDirRequirement's listing: a file staged under a name, or a directory made empty. */
export type WorkDirEntry = { entry: CwlFile; entryname: string } | { class: 'Directory'; basename: string; listing: WorkDirEntry[] };
