import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import type { FromSchema } from 'json-schema-to-ts';
import type { tesTaskBody } from '../../contract/tes.js';
import { DataPathError, parseDataName, type DataRef } from '../../data/index.js';
import { PUBLIC_ACCOUNT } from '../access.js';
import { invalid } from '../errors.js';
import type { StageSource, TesJobPart, ToolJobSpec } from '../tasks/job-spec.js';
import { checkContainerPath, isUnder, jobRelativePath, parentDir, rootsOf } from './paths.js';
import { executorFiles, tesScript } from './script.js';

/**
 * A TES task compiled into gdflow's job model (docs/ga4gh.md): one tool job whose command is the executors' commands
 * in order (script.ts), with the directories, inputs and outputs of its `tes` part. Everything a client can get wrong
 * is refused here with the field named; a URL this server cannot reach (s3://, gs://, http(s) where the operator has
 * not allowed it) is accepted, as TES servers do, and fails the task before anything runs (SYSTEM_ERROR, with why).
 */

export type TesTaskBody = FromSchema<typeof tesTaskBody>;

/** What the operator lets TES inputs reach (config: tesFileRoots, tesAllowHttp). */
export interface TesStagingPolicy {
  /** Host directories file:// inputs may read from (real paths). */
  fileRoots: readonly string[];
  /** Whether http(s):// inputs are fetched by the server. */
  allowHttp: boolean;
}

export interface CompiledTesTask {
  spec: ToolJobSpec;
  cpu: number;
  memMb: number;
  tags: Record<string, string>;
}

/** The node id of a TES task's one job. */
export const TES_NODE = 'tes';
/** Largest `content` of one input (TES asks for at least 128 KiB). */
export const MAX_CONTENT_BYTES = 1024 * 1024;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BACKEND_PARAMETERS = ['network'];

/** The data store item a `gdflow:` URL names: `gdflow:/path` (the caller's), `gdflow://ACCOUNT/path`. */
function dataUrl(url: string, account: string, field: string): DataRef {
  const name = url.startsWith('gdflow://') ? `${url.slice('gdflow://'.length).replace('/', ':/')}` : url.slice('gdflow:'.length);
  try {
    return parseDataName(name, account);
  } catch (error) {
    throw invalid(`${field} '${url.slice(0, 200)}': ${error instanceof DataPathError ? error.message : String(error)}`);
  }
}

/** A file:// URL (or a bare absolute path) under one of the operator's roots, as a real path. */
function localFile(url: string, policy: TesStagingPolicy, field: string): string | { problem: string } {
  let path: string;
  try {
    path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  } catch {
    throw invalid(`${field} '${url.slice(0, 200)}' is not a valid file:// URL`);
  }
  if (policy.fileRoots.length === 0)
    return { problem: `${field} '${url.slice(0, 200)}': this server reads no local files (the operator has set no tesFileRoots)` };
  const outside = () => invalid(`${field} '${url.slice(0, 200)}' is not under a directory the operator allows (${policy.fileRoots.join(', ')})`);
  // Nothing is looked up outside the roots: whether a file exists elsewhere on the server is not the client's to learn.
  if (posix.normalize(path) !== path || !policy.fileRoots.some((root) => isUnder(path, root))) throw outside();
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw invalid(`${field} '${url.slice(0, 200)}' does not exist on the server`);
  }
  if (!policy.fileRoots.some((root) => isUnder(real, root))) throw outside();
  return real;
}

function stageSource(
  input: NonNullable<TesTaskBody['inputs']>[number],
  account: string,
  policy: TesStagingPolicy,
  field: string,
): StageSource | { problem: string } {
  if (input.content !== undefined && input.content !== '') {
    if (Buffer.byteLength(input.content) > MAX_CONTENT_BYTES)
      throw invalid(`${field}.content is larger than ${MAX_CONTENT_BYTES} bytes; store the file and give its url`);
    if (input.type === 'DIRECTORY') throw invalid(`${field}.content cannot make a DIRECTORY`);
    return { kind: 'content', text: input.content };
  }
  const url = input.url;
  if (url === undefined || url === '') throw invalid(`${field} needs a url or a content`);
  if (url.startsWith('gdflow:')) {
    const ref = dataUrl(url, account, `${field}.url`);
    if (ref.account !== account && ref.account !== PUBLIC_ACCOUNT)
      throw invalid(`${field}.url '${url.slice(0, 200)}' is data of account '${ref.account}'; a task reads its own account's data and public data`);
    return { kind: 'data', account: ref.account, path: ref.path };
  }
  if (url.startsWith('file://') || url.startsWith('/')) {
    const file = localFile(url, policy, `${field}.url`);
    return typeof file === 'string' ? { kind: 'file', path: file } : file;
  }
  if (/^https?:\/\//i.test(url)) {
    if (input.type === 'DIRECTORY') throw invalid(`${field}: an http(s) URL cannot be a DIRECTORY`);
    return policy.allowHttp
      ? { kind: 'url', url }
      : { problem: `${field}.url '${url.slice(0, 200)}': this server fetches no http(s) inputs (the operator has not set tesAllowHttp)` };
  }
  return {
    problem: `${field}.url '${url.slice(0, 200)}': gdflow reads gdflow: data names, file:// and http(s):// URLs, not ${url.split(':')[0]!.slice(0, 20)}:`,
  };
}

function resources(body: TesTaskBody): { cpu: number; memMb: number; network: boolean } {
  const r = body.resources ?? {};
  const params = r.backend_parameters ?? {};
  const unknown = Object.keys(params).filter((key) => !BACKEND_PARAMETERS.includes(key.toLowerCase()));
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
    const field = `outputs[${i}]`;
    if (/[*?[]/.test(output.path))
      throw invalid(`${field}.path '${output.path.slice(0, 200)}' has wildcards, which gdflow does not support yet; name the file or its DIRECTORY`);
    const path = checkContainerPath(output.path, `${field}.path`);
    const type = output.type ?? 'FILE';
    dirs.push(type === 'DIRECTORY' ? path : parentDir(path, `${field}.path`));
    if (!output.url.startsWith('gdflow:')) {
      problems.push(
        `${field}.url '${output.url.slice(0, 200)}': gdflow stores outputs in its data store only (gdflow:/name), not at ${output.url.split(':')[0]!.slice(0, 20)}: URLs`,
      );
      continue;
    }
    const target = dataUrl(output.url, account, `${field}.url`);
    if (target.account !== account)
      throw invalid(`${field}.url '${output.url.slice(0, 200)}' is in account '${target.account}'; a task writes only to its own account's data`);
    store.push({ path, type, target, url: output.url });
  }
  for (const [i, volume] of (body.volumes ?? []).entries()) dirs.push(checkContainerPath(volume, `volumes[${i}]`));

  const roots = rootsOf(dirs);
  const { cpu, memMb, network } = resources(body);
  const command = tesScript(executors);
  const logFiles = executors.flatMap((_, i) => Object.values(executorFiles(i)));
  const fileOutputs = store.filter((s) => s.type === 'FILE').map((s) => jobRelativePath(s.path, roots));
  // A job is reused from the call cache only when its key says all it depends on and its outputs are files it lists.
  const cacheable = stage.every((s) => s.type === 'FILE' && s.source.kind !== 'url') && store.every((s) => s.type === 'FILE');
  const tags = body.tags ?? {};
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
    tes: { roots, dirs: [...new Set(dirs)].sort(), stage, store, problems, executors: executors.length },
  };
  return { spec, cpu, memMb, tags };
}
