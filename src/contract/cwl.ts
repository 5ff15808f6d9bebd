/** The CWL routes' bodies and answers (docs/cwl.md, "Running CWL"). */

/** A CWL document as JSON (docs/cwl.md, "Export"). */
export const cwlDocument = {
  type: 'object',
  required: ['cwlVersion', 'class'],
  properties: { cwlVersion: { const: 'v1.2' }, class: { enum: ['CommandLineTool', 'Workflow', 'ExpressionTool', 'Operation'] } },
  additionalProperties: true,
  description: 'a CWL v1.2 document, as JSON',
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
