/**
 * A worker in miniature, for tests that kill one mid-job: runs the job spec given as JSON in argv[3] on the
 * executor named in argv[2] and prints one line when it starts ("started <external id> <image digest>") and one
 * with the result ("result <json>"). A test SIGKILLs it and adopts the job from its own process.
 *
 * (`node --test dist/test/` runs every file under test/ as a test file, this one too: without arguments it does
 * nothing.)
 */
import { createExecutor, type RunSpec } from '../../src/engine/executors/index.js';

const [kind, specJson] = process.argv.slice(2);
if (kind && specJson) {
  const executor = createExecutor(kind as 'podman' | 'docker', { killGraceMs: 1000 });
  await executor.check();
  const spec = JSON.parse(specJson) as RunSpec;
  const result = await executor.run(spec, new AbortController().signal, {
    onStarted: (info) => process.stdout.write(`started ${info.externalId} ${info.imageDigest}\n`),
  });
  process.stdout.write(`result ${JSON.stringify(result)}\n`);
}
