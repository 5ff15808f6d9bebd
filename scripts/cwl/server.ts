import { startEmbeddedServer, type EmbeddedServer } from '../../src/cli/cwl/embedded-server.js';

/**
 * `--server`: one gdflow server for the whole run, started in the driver's process on a temporary data root (the
 * server `gdflow cwl run` starts for itself when none is configured, with the same settings: GDFLOW_EXECUTOR and the
 * rest), its endpoint and key handed to every runner through the environment. Each `gdflow cwl run` then posts to
 * it instead of starting a server of its own, so a test costs a run, not a server's start: this is how CI runs the
 * `required` tests, on a real server over HTTP as users run theirs.
 */
export interface DriverServer {
  /** The variables the runner gets (GDFLOW_ENDPOINT, GDFLOW_ACCESS_KEY_ID, ...). */
  readonly env: Readonly<Record<string, string>>;
  readonly url: string;
  close(): Promise<void>;
}

/** `executor` overrides GDFLOW_EXECUTOR (the WDL driver runs its tests on the host executor). */
export async function startDriverServer(options: { executor?: string } = {}): Promise<DriverServer> {
  const server: EmbeddedServer = await startEmbeddedServer(options);
  return { env: server.env, url: server.url, close: () => server.close() };
}
