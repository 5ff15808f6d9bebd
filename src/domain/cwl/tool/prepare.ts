import type { JsonMap } from '../expressions/index.js';
import type { CommandLineTool, CwlInputObject, CwlValue } from '../model.js';
import { buildCommandLine } from './command-line.js';
import { ToolExpressions } from './expressions.js';
import { completeInputFiles, inputFileContext } from './input-files.js';
import { stageInitialWorkDir } from './initial-workdir.js';
import { effectiveRequirements, findRequirement, type EffectiveRequirements } from '../workflow/requirements.js';
import { decideResources } from './resources.js';
import { decideRunSettings } from './run-settings.js';
import { Staging } from './staging.js';
import { decideStreams } from './streams.js';
import { DEFAULT_STAGING_ROOT, type ContainerRequest, type RuntimePlaces, type ToolRun, type ToolRunOptions } from './tool-run.js';

/**
 * Everything a CommandLineTool run needs, decided from the tool, its bound inputs (bindInputs) and where it runs:
 * the inputs completed and staged, the resources, InitialWorkDirRequirement's entries, the streams, the
 * environment, the command line. The steps follow cwltool's order, so that each expression sees what it sees
 * there: inputs completed (contents, listings, secondary files) and staged; resources decided (their expressions
 * see outdir and tmpdir only); the work directory laid out (its expressions see the staged paths, and inputs it
 * takes in move there); then streams, settings and the command line, with the final paths.
 */
export async function prepareToolRun(tool: CommandLineTool, inputs: CwlInputObject, runtime: RuntimePlaces, options: ToolRunOptions): Promise<ToolRun> {
  const effective: EffectiveRequirements = options.effective ?? effectiveRequirements([], undefined, tool);
  const docker = findRequirement(effective, 'DockerRequirement');
  const inContainer = options.container === true && docker !== undefined;
  const outdir = (inContainer && docker.requirement.dockerOutputDirectory) || runtime.outdir;
  const values = structuredClone(inputs) as unknown as JsonMap;
  const expressions = new ToolExpressions(tool, effective, options.evaluator, values, { outdir, tmpdir: runtime.tmpdir });

  await completeInputFiles(tool.inputs, values, inputFileContext(tool.cwlVersion, effective, expressions, options));
  const staging = new Staging(options.stagingRoot ?? DEFAULT_STAGING_ROOT);
  staging.stageInputs(
    values,
    tool.inputs.map((input) => input.name),
  );

  const resources = await decideResources(tool, effective, expressions);
  expressions.runtime = { ...expressions.runtime, ...resources.runtime };

  const workDir = findRequirement(effective, 'InitialWorkDirRequirement');
  if (workDir !== undefined) {
    const absoluteRefused = !docker?.required
      ? 'which needs DockerRequirement under requirements'
      : !inContainer
        ? 'which needs the run to be in a container'
        : undefined;
    const context = { expressions, staging, outdir, cwlVersion: tool.cwlVersion, ...(absoluteRefused ? { absoluteRefused } : {}) };
    await stageInitialWorkDir(workDir.requirement, context);
    staging.applyPaths(values);
  }

  const streams = await decideStreams(tool, expressions, outdir);
  const settings = await decideRunSettings(effective, expressions, { outdir, tmpdir: runtime.tmpdir });
  const shell = findRequirement(effective, 'ShellCommandRequirement') !== undefined;
  const commandLine = await buildCommandLine(tool, values, expressions, shell);
  return {
    runtime: { ...expressions.runtime, outdir, tmpdir: runtime.tmpdir } as ToolRun['runtime'],
    inputs: values as unknown as Readonly<Record<string, CwlValue>>,
    argv: commandLine.argv,
    command: commandLine.command,
    shell,
    ...streams,
    env: settings.env,
    resources: resources.request,
    timeLimit: settings.timeLimit,
    networkAccess: settings.networkAccess,
    reusable: settings.reusable,
    inplaceUpdate: settings.inplaceUpdate,
    ...(docker ? { container: containerRequest(docker.requirement, docker.required) } : {}),
    staging: staging.stagedInputs,
    workDir: staging.workDirItems,
    successCodes: tool.successCodes,
    temporaryFailCodes: tool.temporaryFailCodes,
    permanentFailCodes: tool.permanentFailCodes,
  };
}

function containerRequest(requirement: ContainerRequest['requirement'], required: boolean): ContainerRequest {
  const image = requirement.dockerImageId ?? requirement.dockerPull;
  return image === undefined ? { requirement, required } : { image, requirement, required };
}

/** How a run ended by its exit code (CWL's rule, as cwltool applies it: 0 succeeds unless listed as a failure). */
export function exitStatus(
  run: Pick<ToolRun, 'successCodes' | 'temporaryFailCodes' | 'permanentFailCodes'>,
  exitCode: number,
): 'success' | 'temporaryFail' | 'permanentFail' {
  if (run.successCodes.includes(exitCode)) return 'success';
  if (run.temporaryFailCodes.includes(exitCode)) return 'temporaryFail';
  if (run.permanentFailCodes.includes(exitCode)) return 'permanentFail';
  return exitCode === 0 ? 'success' : 'permanentFail';
}
