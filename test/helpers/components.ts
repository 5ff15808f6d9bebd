/**
 * Tests that need a real component (PostgreSQL, ...) skip with the reason when it is not installed,
 * so a developer without it still runs the rest. In CI a skip would hide a missing install step, so
 * there `GDFLOW_REQUIRE_COMPONENTS=1` (set by .ci/run) turns the skip off: the test runs and fails
 * on the missing component instead.
 */
export function componentsRequired(): boolean {
  return process.env.GDFLOW_REQUIRE_COMPONENTS === '1';
}

/**
 * The `skip` option for a test needing a component: the reason it is missing, or undefined to run
 * the test (when it is there, or when components are required and the test should fail).
 */
export function skipWithout(missing: string | undefined): string | undefined {
  if (missing === undefined || componentsRequired()) return undefined;
  return `${missing} (GDFLOW_REQUIRE_COMPONENTS=1 makes this a failure)`;
}

/** What a test that needs the component throws when it runs without it (components required). */
export class MissingComponent extends Error {
  constructor(missing: string) {
    super(`${missing}; GDFLOW_REQUIRE_COMPONENTS=1, so a missing component fails the test instead of skipping it`);
    this.name = 'MissingComponent';
  }
}
