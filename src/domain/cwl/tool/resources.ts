import type { CwlProcessBase, ResourceAmount } from '../model.js';
import { brief, type ToolExpressions } from './expressions.js';
import { ToolRunError } from './errors.js';
import { findRequirement, type EffectiveRequirements } from '../workflow/requirements.js';
import type { CwlRuntime, ResourceRequest } from './tool-run.js';

type Resource = 'cores' | 'ram' | 'tmpdir' | 'outdir';
const RESOURCES: readonly Resource[] = ['cores', 'ram', 'tmpdir', 'outdir'];

/**
 * ResourceRequirement evaluated as cwltool evaluates it: expressions see `runtime.outdir` and `runtime.tmpdir`
 * only (the other runtime fields are what is being decided); a missing (or zero) bound takes the other one, both
 * missing take CWL's defaults (cores 1, ram 256 MiB, or 1024 MiB for a v1.0 document, 1024 MiB of tmpdir and of
 * outdir). The runtime gets the minimums, rounded up to whole numbers (v1.2 allows fractional cores).
 */
export async function decideResources(
  process: CwlProcessBase,
  effective: EffectiveRequirements,
  expressions: ToolExpressions,
): Promise<{ request: ResourceRequest; runtime: Pick<CwlRuntime, 'cores' | 'ram' | 'tmpdirSize' | 'outdirSize'> }> {
  const requirement = findRequirement(effective, 'ResourceRequirement')?.requirement;
  const ram = process.cwlVersion === 'v1.0' ? 1024 : 256;
  const defaults: Record<Resource, number> = { cores: 1, ram, tmpdir: 1024, outdir: 1024 };
  const request: Record<string, number> = {};
  for (const resource of RESOURCES) {
    const min = await amount(`${resource}Min`, requirement?.[`${resource}Min`], expressions);
    const max = await amount(`${resource}Max`, requirement?.[`${resource}Max`], expressions);
    request[`${resource}Min`] = min ?? max ?? defaults[resource];
    request[`${resource}Max`] = max ?? min ?? defaults[resource];
  }
  const decided = request as unknown as ResourceRequest;
  return {
    request: decided,
    runtime: {
      cores: Math.ceil(decided.coresMin),
      ram: Math.ceil(decided.ramMin),
      tmpdirSize: Math.ceil(decided.tmpdirMin),
      outdirSize: Math.ceil(decided.outdirMin),
    },
  };
}

async function amount(field: string, value: ResourceAmount | undefined, expressions: ToolExpressions): Promise<number | undefined> {
  if (value === undefined) return undefined;
  const result = await expressions.evaluate(value);
  if (result === null || result === 0) return undefined;
  if (typeof result === 'number' && result > 0) return result;
  throw new ToolRunError(`ResourceRequirement.${field} must be a positive number, but ${JSON.stringify(value)} gave ${brief(result)}`);
}
