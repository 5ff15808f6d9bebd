import { Ajv } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';

/**
 * What a job runs, as the plan (plan.ts) fixes it at activation and the store keeps it (jobs.spec). The schema is
 * the one definition: the types below are derived from it, and a spec read back from the store is validated
 * against it (parseJobSpec), so that a worker never runs a document it does not understand (written by another
 * version, or damaged) on the strength of a cast.
 */

const dataRef = {
  type: 'object',
  properties: { account: { type: 'string', minLength: 1 }, path: { type: 'string', minLength: 1 } },
  required: ['account', 'path'],
  additionalProperties: false,
} as const;

/** Where a file comes from: the data store, or a path inside an upstream job's working directory. */
const fileSource = {
  oneOf: [
    {
      type: 'object',
      properties: { kind: { const: 'data' }, account: { type: 'string', minLength: 1 }, path: { type: 'string', minLength: 1 } },
      required: ['kind', 'account', 'path'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        kind: { const: 'job' },
        jobId: { type: 'string', minLength: 1 },
        nodeId: { type: 'string', minLength: 1 },
        path: { type: 'string', minLength: 1 },
      },
      required: ['kind', 'jobId', 'nodeId', 'path'],
      additionalProperties: false,
    },
  ],
} as const;

/** Where a TES task's input comes from (docs/ga4gh.md, "Inputs"). */
const stageSource = {
  oneOf: [
    {
      type: 'object',
      properties: { kind: { const: 'data' }, account: { type: 'string', minLength: 1 }, path: { type: 'string', minLength: 1 } },
      required: ['kind', 'account', 'path'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { kind: { const: 'file' }, path: { type: 'string', minLength: 1 } },
      required: ['kind', 'path'],
      additionalProperties: false,
    },
    { type: 'object', properties: { kind: { const: 'url' }, url: { type: 'string', minLength: 1 } }, required: ['kind', 'url'], additionalProperties: false },
    { type: 'object', properties: { kind: { const: 'content' }, text: { type: 'string' } }, required: ['kind', 'text'], additionalProperties: false },
  ],
} as const;

const fileType = { enum: ['FILE', 'DIRECTORY'] } as const;

/**
 * What a TES task's job does around its command (docs/ga4gh.md): the container directories bound from its job
 * directory, the inputs placed there before the command runs, the outputs stored in the data store after it
 * succeeded, and what makes it fail before it starts (a URL this server cannot reach).
 */
const tesPart = {
  type: 'object',
  properties: {
    roots: { type: 'array', items: { type: 'string', pattern: '^/' } },
    /** Every directory the task names (workdirs, volumes, outputs' and streams' directories): made before it runs. */
    dirs: { type: 'array', items: { type: 'string', pattern: '^/' } },
    stage: {
      type: 'array',
      items: {
        type: 'object',
        properties: { path: { type: 'string', pattern: '^/' }, type: fileType, source: stageSource },
        required: ['path', 'type', 'source'],
        additionalProperties: false,
      },
    },
    store: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          /** The container path; with `prefix`, a pattern (`*`, `?`, `[...]`) whose every match is stored. */
          path: { type: 'string', pattern: '^/' },
          type: fileType,
          /** Where it goes: a data store item, or (`file`) a host path below one of the operator's output roots. */
          target: dataRef,
          file: {
            type: 'object',
            properties: { root: { type: 'string', pattern: '^/' }, path: { type: 'string', pattern: '^/' } },
            required: ['root', 'path'],
            additionalProperties: false,
          },
          url: { type: 'string' },
          /** A pattern's path_prefix: removed from each match, the rest put below the target. */
          prefix: { type: 'string', pattern: '^/' },
        },
        required: ['path', 'type', 'url'],
        additionalProperties: false,
      },
    },
    problems: { type: 'array', items: { type: 'string' } },
    /** What was sent and ignored (unsupported backend parameters): shown in the task's system_logs, fails nothing. */
    warnings: { type: 'array', items: { type: 'string' } },
    executors: { type: 'integer', minimum: 1 },
  },
  required: ['roots', 'dirs', 'stage', 'store', 'problems', 'executors'],
  additionalProperties: false,
} as const;

const common = {
  nodeId: { type: 'string', minLength: 1 },
  alias: { type: 'string' },
  /** Ids of the jobs that must succeed before this one runs. */
  deps: { type: 'array', items: { type: 'string', minLength: 1 } },
} as const;

const toolJobSchema = {
  type: 'object',
  properties: {
    kind: { const: 'tool' },
    ...common,
    command: { type: 'string' },
    stdin: { type: 'string' },
    stdout: { type: 'string' },
    mounts: {
      type: 'array',
      items: {
        type: 'object',
        properties: { source: fileSource, sandboxPath: { type: 'string', pattern: '^/var/data/' } },
        required: ['source', 'sandboxPath'],
        additionalProperties: false,
      },
    },
    /** Output files relative to the working directory; their directories are made before the run. */
    outputFiles: { type: 'array', items: { type: 'string', minLength: 1 } },
    cpu: { type: 'integer', minimum: 0 },
    memMb: { type: 'integer', minimum: 0 },
    network: { type: 'boolean' },
    image: { type: 'string' },
    /** The tool version and a digest of its definition (what the call-cache key is made of); absent in older specs. */
    tool: {
      type: 'object',
      properties: { name: { type: 'string' }, version: { type: 'integer' }, digest: { type: 'string' } },
      required: ['name', 'version', 'digest'],
      additionalProperties: false,
    },
    /** The parameter values after defaults (call-cache key, explain). */
    parameters: { type: 'object' },
    /** False when the tool says its jobs are never to be reused (call_caching: false): no key is made for them. */
    callCaching: { type: 'boolean' },
    /** The tool's retry policy document, null for the server's default. */
    retry: { type: ['object', 'null'] },
    /** A TES task's job: its roots, inputs to place and outputs to store (docs/ga4gh.md). */
    tes: tesPart,
  },
  required: ['kind', 'nodeId', 'alias', 'deps', 'command', 'mounts', 'outputFiles', 'cpu', 'memMb', 'network', 'image'],
  additionalProperties: false,
} as const;

const loadJobSchema = {
  type: 'object',
  properties: { kind: { const: 'load' }, ...common, items: { type: 'array', items: dataRef } },
  required: ['kind', 'nodeId', 'alias', 'deps', 'items'],
  additionalProperties: false,
} as const;

/** A save step (GeneDock's `storedata`): its kind stays 'store' in persisted specs, so older specs still parse. */
const saveJobSchema = {
  type: 'object',
  properties: {
    kind: { const: 'store' },
    ...common,
    imports: {
      type: 'array',
      items: {
        type: 'object',
        properties: { source: fileSource, target: dataRef, description: { type: 'string' } },
        required: ['source', 'target', 'description'],
        additionalProperties: false,
      },
    },
  },
  required: ['kind', 'nodeId', 'alias', 'deps', 'imports'],
  additionalProperties: false,
} as const;

/**
 * A File or Directory a run must find at `path` (absolute, as the command sees it), parents before children: bound
 * read-only from `location` (a file: URI of the host, under the data root), made from a literal (a File's `contents`;
 * a Directory without a location is made empty and filled by the items after it), or, `writable`, a copy the command
 * may change; `inPlace`, the original itself, bound writable (CWL's InplaceUpdateRequirement).
 */
const stagedItem = {
  type: 'object',
  properties: {
    class: { enum: ['File', 'Directory'] },
    path: { type: 'string', pattern: '^/' },
    location: { type: 'string', pattern: '^file:' },
    contents: { type: 'string' },
    writable: { type: 'boolean' },
    inPlace: { type: 'boolean' },
  },
  required: ['class', 'path', 'writable'],
  additionalProperties: false,
} as const;

/**
 * What a run is in the call cache's terms (domain/cache/work-key.ts), as its language says it: the script without the
 * engine's wrapping, the image the document names (also where no container runs), what its outputs are collected
 * from, which staged items the document placed (CWL's InitialWorkDir) and which are the engine's own (a WDL command
 * file). Absent (specs of older versions): the key is made of the command as run, never equal to another language's.
 */
const runWork = {
  type: 'object',
  properties: {
    script: { type: 'string' },
    shell: { enum: ['sh', 'bash'] },
    image: { type: 'string' },
    entrypoint: { type: 'boolean' },
    outputs: { type: 'array', items: { type: 'string' } },
    optionalReads: { type: 'array', items: { type: 'string' } },
    fixed: { type: 'array', items: { type: 'string' } },
    internal: { type: 'array', items: { type: 'string' } },
    stdin: { type: 'string' },
    stdout: { type: 'string' },
    stderr: { type: 'string' },
    /** Files of the working directory the engine's wrapping copies the streams into (WDL's stdout() and stderr()). */
    streamFiles: {
      type: 'object',
      properties: { stdout: { type: 'string', minLength: 1 }, stderr: { type: 'string', minLength: 1 } },
      additionalProperties: false,
    },
  },
  required: ['script', 'shell', 'image', 'entrypoint', 'outputs'],
  additionalProperties: false,
} as const;

/** What a deferred job resolved into a run does: a command, as a tool job's, with the files it must find. */
const resolvedRun = {
  type: 'object',
  properties: {
    kind: { const: 'run' },
    /** Run with /bin/sh -c in the job's working directory (/var/data in the sandbox). */
    command: { type: 'string' },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    staging: { type: 'array', items: stagedItem },
    cpu: { type: 'integer', minimum: 0 },
    /** The memory limit (MiB; 0: none asked). */
    memMb: { type: 'integer', minimum: 0 },
    /**
     * The disk space (MiB) the run asked for (a WDL task's disks or a restart's debug_params disk), checked against the data root's free
     * space when it was resolved, not reserved; shown on its job. Absent: none asked.
     */
    diskMb: { type: 'integer', minimum: 1 },
    network: { type: 'boolean' },
    /** The container image, for the executors that run one; empty: none. */
    image: { type: 'string' },
    /**
     * In the image's container, the command gets the image's ENTRYPOINT words as its positional parameters, so that
     * `"$@" prog args` runs them as `docker run IMAGE prog args` would (CWL's DockerRequirement). Absent: false.
     */
    imageEntrypoint: { type: 'boolean' },
    /**
     * Where the command sees its working directory in the image's container, when not /var/data (CWL's
     * `dockerOutputDirectory`); staged items under it are in the working directory. Absent: /var/data.
     */
    workDirPath: { type: 'string', minLength: 2 },
    /**
     * Absolute paths where the run gets an empty directory of its own, bound read-write (a WDL task's disks at mount
     * points: RunSpec.roots, as a TES task's). Only on an executor with a sandbox; absent: none.
     */
    roots: { type: 'array', items: { type: 'string', pattern: '^/' } },
    /** Seconds, 0 for no limit of its own (the server's job timeout still applies). */
    timeLimit: { type: 'integer', minimum: 0 },
    /** False when the run must not come from the call cache (its document says its results are not reusable). */
    callCaching: { type: 'boolean' },
    /**
     * False when the run must run even if the call cache has it (a WDL restart's call run again): its key is still made,
     * for later tasks to reuse it. Absent: true.
     */
    reuse: { type: 'boolean' },
    /** The resolver's payload for turning the finished working directory into the job's outputs. */
    collect: { type: 'object' },
    /** The run's retry policy document (a tool's `retry`: WDL's maxRetries); absent: the server's default. */
    retry: { type: 'object' },
    work: runWork,
  },
  required: ['kind', 'command', 'env', 'staging', 'cpu', 'memMb', 'network', 'image', 'timeLimit', 'callCaching', 'collect'],
  additionalProperties: false,
} as const;

/** A deferred job that added jobs to its task: it ends when they have, with the outputs its resolver gathers from theirs. */
const resolvedExpansion = {
  type: 'object',
  properties: {
    kind: { const: 'expand' },
    /** The ids of the jobs it added. */
    children: { type: 'array', items: { type: 'string', minLength: 1 } },
    /** The resolver's payload for gathering their outputs. */
    gather: { type: 'object' },
  },
  required: ['kind', 'children', 'gather'],
  additionalProperties: false,
} as const;

/**
 * A deferred job (docs/tasks.md, "Deferred jobs"): its work is known only when the jobs it depends on have ended (a
 * CWL step, later a WDL call). When they have, the engine asks its resolver what it is, with their outputs: a run, a
 * value, an expansion into more jobs, or nothing (skipped). `resolved` records a run or an expansion once decided.
 */
const stepJobSchema = {
  type: 'object',
  properties: {
    kind: { const: 'step' },
    ...common,
    /** The resolver that decides what the job is (`cwl`). */
    resolver: { type: 'string', minLength: 1 },
    /** The job's name among its task's deferred jobs, as the resolver speaks of it (`main/align[3]`). */
    key: { type: 'string', minLength: 1 },
    /** What the resolver needs to resolve it. */
    payload: { type: 'object' },
    /** The id of the job whose expansion added this one, which waits for it. */
    parent: { type: 'string', minLength: 1 },
    resolved: { oneOf: [resolvedRun, resolvedExpansion] },
  },
  required: ['kind', 'nodeId', 'alias', 'deps', 'resolver', 'key', 'payload'],
  additionalProperties: false,
} as const;

export const JOB_SPEC_SCHEMA = { oneOf: [toolJobSchema, loadJobSchema, saveJobSchema, stepJobSchema] } as const;

export type FileSource = FromSchema<typeof fileSource>;
export type ToolJobSpec = FromSchema<typeof toolJobSchema>;
export type LoadJobSpec = FromSchema<typeof loadJobSchema>;
export type SaveJobSpec = FromSchema<typeof saveJobSchema>;
export type TesJobPart = FromSchema<typeof tesPart>;
export type StageSource = FromSchema<typeof stageSource>;
export type StepJobSpec = FromSchema<typeof stepJobSchema>;
export type StagedItem = FromSchema<typeof stagedItem>;
export type ResolvedRun = FromSchema<typeof resolvedRun>;
export type RunWork = FromSchema<typeof runWork>;
export type ResolvedExpansion = FromSchema<typeof resolvedExpansion>;
export type JobSpec = ToolJobSpec | LoadJobSpec | SaveJobSpec | StepJobSpec;

/** A deferred job not resolved yet: the engine asks its resolver what it is once it is queued. */
export const isUnresolvedStep = (spec: JobSpec): spec is StepJobSpec => spec.kind === 'step' && spec.resolved === undefined;

/** A deferred job resolved into a run: it runs as a tool job does. */
export const runOf = (spec: JobSpec): ResolvedRun | undefined => (spec.kind === 'step' && spec.resolved?.kind === 'run' ? spec.resolved : undefined);

/** A deferred job that expanded: it gathers the jobs it added. */
export const expansionOf = (spec: JobSpec): ResolvedExpansion | undefined =>
  spec.kind === 'step' && spec.resolved?.kind === 'expand' ? spec.resolved : undefined;

/** The jobs that must end before this one goes on: its deps, and the jobs an expansion of it added. */
export const upstreamOf = (spec: JobSpec): readonly string[] => {
  const expansion = expansionOf(spec);
  return expansion ? [...spec.deps, ...expansion.children] : spec.deps;
};

const validate = new Ajv({ allErrors: false }).compile<JobSpec>(JOB_SPEC_SCHEMA);

export class JobSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobSpecError';
  }
}

/** The spec of a job as read back from the store, checked against the schema; JobSpecError says what is wrong. */
export function parseJobSpec(value: unknown): JobSpec {
  if (validate(value)) return value;
  const kind = typeof value === 'object' && value !== null && 'kind' in value ? String(value.kind) : 'unknown';
  const detail = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
  throw new JobSpecError(`the job spec (kind ${kind}) is not one this version runs: ${detail}`);
}
