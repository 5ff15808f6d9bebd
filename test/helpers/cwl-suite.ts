/**
 * The CWL v1.2 conformance suite the tests read (../shared/cwl-v1.2, or GDFLOW_CWL_SUITE). It is test data outside
 * the repository, so the tests that need it skip without it, saying why; under GDFLOW_REQUIRE_COMPONENTS=1 (CI) they
 * run and fail instead, as for any missing component.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSuite } from '../../scripts/cwl/options.js';
import { skipWithout } from './components.js';

/** The `skip` option of a test that reads the suite at `dir`: why it is missing, or undefined to run the test. */
export function skipWithoutCwlSuite(dir: string = defaultSuite()): string | undefined {
  return skipWithout(existsSync(join(dir, 'conformance_tests.yaml')) ? undefined : `no CWL suite at ${dir} (GDFLOW_CWL_SUITE names another place)`);
}
