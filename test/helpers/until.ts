/**
 * Wait for an observable state instead of sleeping for a guess: a test that needs "the job runs" or "the second
 * one is queued" asks for it again and again until it holds. The deadline only turns a hang into a failure that
 * says what never came; it is not what the test measures.
 */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
