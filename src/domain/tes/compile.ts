import type { FromSchema } from 'json-schema-to-ts';
import type { tesTaskBody } from '../../contract/tes.js';
import { invalid } from '../errors.js';
import type { TesJobPart, ToolJobSpec } from '../tasks/job-spec.js';
import { stageSource, storeItem, type TesStagingPolicy } from './locations.js';
import { checkContainerPath, jobRelativePath, parentDir, rootsOf } from './paths.js';
import { executorFiles, tesScript } from './script.js';

/**
 * A TES task compiled into gdflow's job model (docs/ga4gh.md): one tool job whose command is the executors' commands
 * in order (script.ts), with the directories, inputs and outputs of its `tes` part. Everything a client can get wrong
 * is refused here with the field named (locations.ts: what the operator lets a task read and write); a URL of a kind
 * this server does not reach (s3://, gs://) is accepted, as TES servers do, and fails the task before anything runs
 * (SYSTEM_ERROR, with why).
 */

export type TesTaskBody = FromSchema<typeof tesTaskBody>;

export interface CompiledTesTask {
  spec: ToolJobSpec;
  cpu: number;
  memMb: number;
  tags: Record<string, string>;
  /** The task as gdflow keeps and shows it (keptDocument). */
  document: TesTaskBody;
}

/** The node id of a TES task's one job. */
export const TES_NODE = 'tes';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BACKEND_PARAMETERS = ['network'];

/** Backend parameter keys gdflow does not know (TES: "keys are case insensitive"). */
const unsupportedKeys = (body: TesTaskBody): string[] =>
  Object.keys(body.resources?.backend_parameters ?? {}).filter((key) => !BACKEND_PARAMETERS.includes(key.toLowerCase()));

function resources(body: TesTaskBody): { cpu: number; memMb: number; network: boolean } {
  const r = body.resources ?? {};
  const params = r.backend_parameters ?? {};
  const unknown = unsupportedKeys(body);
  if (r.backend_parameters_strict === true && unknown.length > 0) {
    throw invalid(
      `resources.backend_parameters ${unknown.map((k) => `'${k.slice(0, 64)}'`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not supported (gdflow knows: ${BACKEND_PARAMETERS.join(', ')})`,
    );
  }
  const network = Object.entries(params).find(([key]) => key.toLowerCase() === 'network')?.[1];
  if (network !== undefined && network !== 'true' && network !== 'false') throw invalid(`resources.backend_parameters.network must be "true" or "false"`);
  const cpu = r.cpu_cores === undefined || r.cpu_cores === 0 ? 1 : r.cpu_cores;
  if (cpu > 1024) throw invalid('resources.cpu_cores is more than 1024');
  if (r.ram_gb !== undefined && r.ram_gb > 65536) throw invalid('resources.ram_gb is more than 65536');
  return { cpu, memMb: r.ram_gb ? Math.ceil(r.ram_gb * 1024) : 0, network: network === 'true' };
}

/**
 * The task as gdflow keeps it and its views show it. TES 1.1 asks for two changes to what was sent: inputs' and outputs'
 * `type` is filled in ("required that the server fill in the value once the information is available": gdflow reads a
 * missing one as FILE when the task is created), and "backends shall not store or return unsupported keys" of
 * `backend_parameters` (they are named in the task's system_logs instead).
 */
function keptDocument(body: TesTaskBody, tags: Record<string, string>, unsupported: readonly string[]): TesTaskBody {
  const params = body.resources?.backend_parameters;
  const kept = params && Object.fromEntries(Object.entries(params).filter(([key]) => !unsupported.includes(key)));
  return {
    ...body,
    ...(body.inputs ? { inputs: body.inputs.map((input) => ({ ...input, type: input.type ?? 'FILE' })) } : {}),
    ...(body.outputs ? { outputs: body.outputs.map((output) => ({ ...output, type: output.type ?? 'FILE' })) } : {}),
    ...(body.resources && kept ? { resources: { ...body.resources, backend_parameters: kept } } : {}),
    tags,
  };
}

export function compileTesTask(body: TesTaskBody, account: string, policy: TesStagingPolicy): CompiledTesTask {
  const problems: string[] = [];
  const dirs: string[] = [];
  const images = new Set(body.executors.map((e) => e.image));
  if (images.size > 1)
    throw invalid(
      `executors name ${images.size} images (${[...images].slice(0, 3).join(', ')}); a gdflow TES task runs its executors in one job, in one image`,
    );
  const executors = body.executors.map((executor, i) => {
    const field = `executors[${i}]`;
    if (executor.image === '') throw invalid(`${field}.image is empty`);
    for (const [name, value] of Object.entries(executor.env ?? {})) {
      if (!ENV_NAME.test(name)) throw invalid(`${field}.env: '${name.slice(0, 64)}' is not a variable name (letters, digits and _, not starting with a digit)`);
      if (value.includes('\0')) throw invalid(`${field}.env.${name} holds a NUL character`);
    }
    if (executor.command.some((word) => word.includes('\0'))) throw invalid(`${field}.command holds a NUL character`);
    const out = { ...executor };
    if (executor.workdir !== undefined) dirs.push((out.workdir = checkContainerPath(executor.workdir, `${field}.workdir`)));
    for (const stream of ['stdin', 'stdout', 'stderr'] as const) {
      const value = executor[stream];
      if (value === undefined) continue;
      out[stream] = checkContainerPath(value, `${field}.${stream}`);
      dirs.push(parentDir(out[stream], `${field}.${stream}`));
    }
    return out;
  });

  const stage: TesJobPart['stage'] = [];
  for (const [i, input] of (body.inputs ?? []).entries()) {
    const field = `inputs[${i}]`;
    const path = checkContainerPath(input.path, `${field}.path`);
    const type = input.type ?? 'FILE';
    dirs.push(type === 'DIRECTORY' ? path : parentDir(path, `${field}.path`));
    const source = stageSource(input, account, policy, field);
    if ('problem' in source) problems.push(source.problem);
    else stage.push({ path, type, source });
  }

  const store: TesJobPart['store'] = [];
  for (const [i, output] of (body.outputs ?? []).entries()) {
    const { item, problem, dir } = storeItem(output, account, policy, `outputs[${i}]`);
    dirs.push(dir);
    if (item) store.push(item);
    if (problem) problems.push(problem);
  }
  for (const [i, volume] of (body.volumes ?? []).entries()) dirs.push(checkContainerPath(volume, `volumes[${i}]`));

  const roots = rootsOf(dirs);
  const { cpu, memMb, network } = resources(body);
  const command = tesScript(executors);
  const logFiles = executors.flatMap((_, i) => Object.values(executorFiles(i)));
  const fileOutputs = store.filter((s) => s.type === 'FILE' && s.prefix === undefined).map((s) => jobRelativePath(s.path, roots));
  // A job is reused from the call cache only when its key says all it depends on and its outputs are files it lists,
  // stored again in the data store (a host file written then may have changed since).
  const cacheable =
    stage.every((s) => s.type === 'FILE' && s.source.kind !== 'url') &&
    store.every((s) => s.type === 'FILE' && s.prefix === undefined && s.target !== undefined);
  const tags = body.tags ?? {};
  const unsupported = unsupportedKeys(body);
  const warnings = unsupported.map(
    (key) => `resources.backend_parameters '${key.slice(0, 64)}' is not supported and was ignored (gdflow knows: ${BACKEND_PARAMETERS.join(', ')})`,
  );
  const spec: ToolJobSpec = {
    kind: 'tool',
    nodeId: TES_NODE,
    alias: body.name ?? 'TES task',
    deps: [],
    command,
    mounts: [],
    outputFiles: [...logFiles, ...fileOutputs],
    cpu,
    memMb,
    network,
    image: body.executors[0]!.image,
    tool: { name: 'ga4gh-tes', version: 1, digest: '' },
    parameters: { executors: executors.length },
    callCaching: cacheable,
    retry: null,
    tes: {
      roots,
      dirs: [...new Set(dirs)].sort(),
      stage,
      store,
      problems,
      executors: executors.length,
      ...(warnings.length > 0 ? { warnings } : {}),
    },
  };
  return { spec, cpu, memMb, tags, document: keptDocument(body, tags, unsupported) };
}
