import type { CwlProcess } from '../model.js';

/**
 * The features of a document gdflow cannot run, found before the run starts (the API answers UnsupportedRequirement,
 * `gdflow cwl run` exits 33, as cwltest expects of a runner). Everything else a document may say, gdflow runs (or,
 * for hints, may ignore, as CWL allows).
 */
export function unsupportedFeature(process: CwlProcess, where = 'the document'): string | undefined {
  if (process.class === 'Operation') {
    return `${where} is an Operation (${process.id}): an abstract process, which no runner can run without an implementation`;
  }
  const docker = process.requirements.find((r) => r.class === 'DockerRequirement');
  const named = docker?.dockerPull !== undefined || docker?.dockerImageId !== undefined;
  if (docker !== undefined && !named && (docker.dockerFile !== undefined || docker.dockerImport !== undefined || docker.dockerLoad !== undefined)) {
    const how = docker.dockerFile !== undefined ? 'dockerFile' : docker.dockerImport !== undefined ? 'dockerImport' : 'dockerLoad';
    return `${where} requires DockerRequirement with ${how} (${process.id}): and no image name: gdflow runs images by name only (dockerPull, dockerImageId)`;
  }
  if (process.class !== 'Workflow') return undefined;
  for (const step of process.steps) {
    const found = unsupportedFeature(step.run, `step '${step.name}'`);
    if (found !== undefined) return found;
  }
  return undefined;
}
