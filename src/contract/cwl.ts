import type { FromSchema } from 'json-schema-to-ts';

/** The CWL routes' bodies and answers (docs/cwl.md, "Running CWL"). */

/**
 * A CWL document as JSON (docs/cwl.md, "Export"): one process (with `class`), or a `$graph` of processes. A version
 * written in GeneDock's format exports as CWL v1.2; one imported from CWL as the packed document it was imported from.
 */
export const cwlDocument = {
  type: 'object',
  required: ['cwlVersion'],
  properties: {
    cwlVersion: { enum: ['v1.0', 'v1.1', 'v1.2'] },
    class: { enum: ['CommandLineTool', 'Workflow', 'ExpressionTool', 'Operation'] },
    $graph: { type: 'array', items: { type: 'object' }, description: 'the processes of a packed document (then no class at the top)' },
  },
  additionalProperties: true,
  description: 'a CWL document, as JSON: a CWL v1.2 export, or the packed document a version was imported from',
} as const;

/** POST cwl/import/ (docs/cwl.md, "Import"). */
export const importCwlBody = {
  type: 'object',
  properties: {
    document: {
      type: 'object',
      description:
        'the packed CWL document as JSON (as gdflow cwl run sends it: one process or a $graph, every `run` inlined, default Files at gdflow: locations)',
    },
    process: { type: 'string', description: 'the process to import, such as #main (absent: #main, or the only process); what it runs is imported with it' },
    name: { type: 'string', description: "the name of that process's tool or workflow (absent: made from its id); the others are named after their ids" },
  },
  required: ['document'],
} as const;

export type ImportCwlBody = FromSchema<typeof importCwlBody>;

export const importedCwl = {
  type: 'object',
  properties: {
    imported: {
      type: 'array',
      description: 'every tool and workflow version the document made, the process asked for first, then what it runs',
      items: {
        type: 'object',
        properties: {
          process: { type: 'string', description: 'the id of the process in the posted document (#main, #revtool.cwl, ...)' },
          kind: { enum: ['tool', 'workflow'] },
          name: { type: 'string' },
          version: { type: 'integer' },
          created: { type: 'boolean', description: "false when the name's latest version held the same document already: nothing was written for it" },
        },
        required: ['process', 'kind', 'name', 'version', 'created'],
        additionalProperties: false,
      },
    },
  },
  required: ['imported'],
  additionalProperties: false,
} as const;

export const runCwlBody = {
  type: 'object',
  properties: {
    document: {
      type: 'object',
      description:
        'the packed CWL document as JSON: one process, or a $graph; every `run` inlined, $import and $include expanded, Files and ' +
        'Directories (defaults too) uploaded to the data store and written gdflow:<data path>',
    },
    process: { type: 'string', description: 'the $graph entry to run, such as #main (absent: #main, or the only process)' },
    job: { type: ['object', 'null'], description: 'the CWL job object (inputs by name); File and Directory locations gdflow:<data path>, literals allowed' },
    name: { type: 'string', description: "the task's name, unique in the project (absent: one is made)" },
  },
  required: ['document'],
} as const;

export type RunCwlBody = FromSchema<typeof runCwlBody>;

export const cwlRun = {
  type: 'object',
  properties: {
    task_id: { type: 'string', description: '24 hex digits: the task routes serve the run too' },
    task_name: { type: 'string' },
    status: { enum: ['scheduled', 'queued', 'running', 'stopping', 'succeeded', 'failed', 'stopped'], description: "the task's status" },
    outputs: {
      type: ['object', 'null'],
      additionalProperties: true,
      description:
        'the CWL output object once the run succeeded: Files and Directories stored under cwl/runs/<task_id>/ of the data store, ' +
        'with gdflow: locations, basename, size, checksum (sha1$...), secondaryFiles and listing; else null',
    },
    reason: { type: ['string', 'null'], description: 'why the run failed or was stopped; else null' },
  },
  required: ['task_id', 'task_name', 'status', 'outputs', 'reason'],
} as const;
