import { ToolRunError } from './errors.js';
import type { ToolExpressions } from './expressions.js';
import { findRequirement, type EffectiveRequirements } from '../workflow/requirements.js';

/** The requirements that decide how a run is treated rather than what it runs. */
export interface RunSettings {
  readonly timeLimit: number;
  readonly networkAccess: boolean;
  readonly reusable: boolean;
  readonly inplaceUpdate: boolean;
  readonly env: Readonly<Record<string, string>>;
}

/**
 * ToolTimeLimit (seconds, 0 for none; an expression must give a whole number of at least 0), NetworkAccess and
 * WorkReuse (booleans or expressions giving them), InplaceUpdateRequirement, and the environment: HOME and TMPDIR
 * as CWL requires (the outdir and the tmpdir), then EnvVarRequirement's variables (expressions giving strings).
 */
export async function decideRunSettings(
  effective: EffectiveRequirements,
  expressions: ToolExpressions,
  places: { readonly outdir: string; readonly tmpdir: string },
): Promise<RunSettings> {
  const limit = findRequirement(effective, 'ToolTimeLimit')?.requirement;
  const timeLimit = limit === undefined ? 0 : await expressions.integer('ToolTimeLimit.timelimit', limit.timelimit);
  if (timeLimit < 0) throw new ToolRunError(`ToolTimeLimit.timelimit must not be negative, but it is ${timeLimit}`);
  const network = findRequirement(effective, 'NetworkAccess')?.requirement;
  const reuse = findRequirement(effective, 'WorkReuse')?.requirement;
  const env: Record<string, string> = { HOME: places.outdir, TMPDIR: places.tmpdir };
  for (const { envName, envValue } of findRequirement(effective, 'EnvVarRequirement')?.requirement.envDef ?? []) {
    env[envName] = await expressions.string(`EnvVarRequirement envValue of ${envName}`, envValue);
  }
  return {
    timeLimit,
    networkAccess: network === undefined ? false : await expressions.boolean('NetworkAccess.networkAccess', network.networkAccess),
    reusable: reuse === undefined ? true : await expressions.boolean('WorkReuse.enableReuse', reuse.enableReuse),
    inplaceUpdate: findRequirement(effective, 'InplaceUpdateRequirement')?.requirement.inplaceUpdate ?? false,
    env,
  };
}
