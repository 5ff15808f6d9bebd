import { spawn, spawnSync } from 'node:child_process';

/**
 * The reference CWL runner, Debian's cwltool, for the tests of exported documents. It is a component
 * (helpers/components.ts): missing, those tests skip saying so, or fail under GDFLOW_REQUIRE_COMPONENTS=1.
 */

let missing: string | undefined | null = null;

/** Why cwltool cannot run here, or undefined when it can. */
export function cwltoolUnavailable(): string | undefined {
  if (missing === null) {
    const probe = spawnSync('cwltool', ['--version'], { encoding: 'utf8', timeout: 60_000 });
    missing = probe.status === 0 ? undefined : 'cwltool is not installed (apt-get install cwltool)';
  }
  return missing;
}

export interface CwltoolResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Run cwltool (asynchronously: a test server in this process keeps answering meanwhile). */
export function cwltool(args: string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<CwltoolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('cwltool', args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
