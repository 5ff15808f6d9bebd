/**
 * The reason of a request that failed its route's schema (contract/routes.ts), in the words the domain uses for
 * the same mistakes: "tool_name must be a string, not 42", "tool_version 'x' is not a positive integer", "the query
 * parameter tool_version is required". Members of a definition are named from inside it
 * (`inputs.reads.required`), as INTERFACE.md 2.2 names them.
 */
import { describe } from '../domain/json.js';
import { unknownMemberReason } from '../domain/nearest-name.js';

export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  /** With ajv's `verbose`: the value and the schema that refused it. */
  data?: unknown;
  parentSchema?: { description?: string; title?: string; properties?: Record<string, unknown> };
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a list',
  null: 'null',
};

function memberPath(instancePath: string): string {
  return instancePath
    .replace(/^\//, '')
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.')
    .replace(/^configs\./, '');
}

export function validationReason(errors: readonly SchemaError[], context: string | undefined): string {
  // ajv reports an anyOf's branches first and the anyOf itself last: the anyOf says it for all of them.
  const error = errors.find((e) => e.keyword === 'anyOf') ?? errors[0];
  if (!error) return 'the request is invalid';
  const path = memberPath(error.instancePath);
  const where = path || (context === 'body' ? 'the body' : context === 'querystring' ? 'the query' : 'the request');
  const shown = typeof error.data === 'string' ? `'${error.data.slice(0, 40)}'` : describe(error.data);
  if (/_version$/.test(path) && ['type', 'minimum', 'maximum', 'pattern'].includes(error.keyword)) return `${path} ${shown} is not a positive integer`;
  switch (error.keyword) {
    case 'required': {
      const missing = String(error.params.missingProperty);
      if (context === 'querystring') return `the query parameter ${missing} is required`;
      return `${path ? `${path}.` : ''}${missing} is required`;
    }
    case 'type': {
      const types = [error.params.type].flat().map((t) => TYPE_WORDS[String(t)] ?? String(t));
      return `${where} must be ${types.join(' or ')}, not ${shown}`;
    }
    case 'anyOf':
      return `${where} must be ${error.parentSchema?.description ?? 'of another form'}, not ${shown}`;
    case 'minLength':
      return error.params.limit === 1 ? `${where} must not be empty` : `${where} must have at least ${String(error.params.limit)} characters`;
    case 'additionalProperties': {
      const schema = error.parentSchema;
      return unknownMemberReason(path, String(error.params.additionalProperty), Object.keys(schema?.properties ?? {}), schema?.title ?? 'object here');
    }
    case 'enum':
      return `${where} must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, not ${shown}`;
    default:
      return `${where} ${error.message ?? 'is invalid'}`;
  }
}
