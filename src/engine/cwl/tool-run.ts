import { shellQuote } from '../../domain/cwl/tool/command-line.js';
import type { CwlRuntime, StagedItem, ToolRun } from '../../domain/cwl/tool/index.js';
import { findRequirement, type EffectiveRequirements } from '../../domain/cwl/workflow/index.js';
import type { CwlInputObject } from '../../domain/cwl/model.js';
import { canonicalJson, sha256 } from '../../domain/cache/key.js';
import type { CommandOutputParameter } from '../../domain/cwl/model/process.js';
import type { ResolvedRun, RunWork } from '../../domain/tasks/job-spec.js';
import type { Json } from '../../store/store.js';

/**
 * A CommandLineTool's prepared run (domain/cwl/tool, prepareToolRun) as a deferred job's run (job-spec.ts,
 * ResolvedRun), and what collecting its outputs needs afterwards.
 */

/** What `collect` needs after the run: where the process is, and the run's inputs, runtime and staged items. */
export interface CollectPayload {
  /** The ids of the steps from the root down to the step that runs the tool ([] for a root tool). */
  readonly path: readonly string[];
  readonly inputs: CwlInputObject;
  readonly runtime: CwlRuntime;
  readonly staged: readonly StagedItem[];
  /** The document's digest: the outputs' globs and expressions are part of what the call-cache key says. */
  readonly digest: string;
}

/** Under InplaceUpdateRequirement, a writable InitialWorkDir entry is the original, not a copy. */
const inPlace = (run: ToolRun, item: StagedItem): boolean => run.inplaceUpdate && item.writable && item.location !== undefined;

/**
 * The staged items as output collection sees them: one changed in place is its original (a pass-through, as a
 * read-only input is), so that an output globbing it keeps the original's location.
 */
export function collectedStaging(run: ToolRun): StagedItem[] {
  return [...run.staging, ...run.workDir].map((item) => (inPlace(run, item) ? { ...item, writable: false } : item));
}

export function resolvedRun(
  run: ToolRun,
  effective: EffectiveRequirements,
  inContainer: boolean,
  collect: CollectPayload,
  outputs: { readonly params: readonly CommandOutputParameter[]; readonly names: ReadonlyArray<readonly string[] | undefined> },
): Omit<ResolvedRun, 'kind'> {
  // The streams are opened by the shell that runs the command, inside the sandbox: a name the tool chose cannot make
  // the server open a host file.
  const redirections = [
    run.stdin !== undefined ? `<${shellQuote(run.stdin)}` : '',
    run.stdout !== undefined ? `>${shellQuote(run.stdout)}` : '',
    run.stderr !== undefined ? `2>${shellQuote(run.stderr)}` : '',
  ].filter(Boolean);
  // In a container the command line goes to the image's entrypoint, as `docker run IMAGE argv...` gives it ("$@":
  // the entrypoint's words, none when the image has none); under ShellCommandRequirement argv is /bin/sh -c command.
  const image = inContainer ? (run.container?.image ?? '') : '';
  const argv = image === '' ? run.command : `"$@" ${run.shell ? ['/bin/sh', '-c', run.command].map((word) => shellQuote(word)).join(' ') : run.command}`;
  const command = redirections.length > 0 ? `exec ${redirections.join(' ')}\n${argv}` : argv;
  // Memory is limited only where the document asks for it (the reference runner limits nothing): CWL's default of
  // 256 MiB would kill tools written for runners that never enforced it.
  const ram = findRequirement(effective, 'ResourceRequirement')?.requirement;
  const asked = ram?.ramMin !== undefined || ram?.ramMax !== undefined;
  return {
    command,
    env: { ...run.env },
    staging: [...run.staging, ...run.workDir].map((item) => (inPlace(run, item) ? { ...item, inPlace: true } : { ...item })),
    cpu: Math.max(1, Math.ceil(run.resources.coresMin)),
    memMb: asked ? Math.ceil(run.resources.ramMax) : 0,
    network: run.networkAccess,
    image,
    ...(image !== '' ? { imageEntrypoint: true } : {}),
    timeLimit: run.timeLimit,
    // A run that changes its inputs in place is never taken from the cache: it is what it does to them that counts.
    callCaching: run.reusable && !(run.inplaceUpdate && run.workDir.some((item) => inPlace(run, item))),
    collect: collect as unknown as Json,
    work: runWork(run, image !== '', outputs),
  };
}

/**
 * The run in the call cache's terms (job-spec.ts, RunWork): the command line as argv (in a container, what the image's
 * ENTRYPOINT is given), InitialWorkDir's entries as placed by the document, and each output as the files its globs
 * name (domain/cwl/tool/output-names.ts: outputEval and loadContents read only those), else as the output's own rule.
 */
function runWork(run: ToolRun, inContainer: boolean, outputs: Parameters<typeof resolvedRun>[4]): RunWork {
  const rules: string[] = [];
  for (const [i, output] of outputs.params.entries()) {
    const names = outputs.names[i];
    rules.push(...(names ?? [`cwl:${sha256(canonicalJson({ ...output, at: undefined }))}`]));
  }
  const script = inContainer && run.shell ? ['/bin/sh', '-c', run.command].map((word) => shellQuote(word)).join(' ') : run.command;
  return {
    script,
    shell: 'sh',
    image: run.container?.image ?? '',
    entrypoint: inContainer,
    outputs: rules,
    // Output collection takes the outputs from cwl.output.json when the command wrote one.
    optionalReads: ['cwl.output.json'],
    fixed: run.workDir.map((item) => item.path),
    ...(run.stdin !== undefined ? { stdin: run.stdin } : {}),
    ...(run.stdout !== undefined ? { stdout: run.stdout } : {}),
    ...(run.stderr !== undefined ? { stderr: run.stderr } : {}),
  };
}
