import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '../../src/client/client.js';
import { cliCommand } from '../helpers/process.js';
import { repoRoot } from '../helpers/paths.js';
import { startTestServer, type TestAccount, type TestServer } from '../helpers/server.js';

/**
 * Running the real `gdflow` binary as a subprocess against a real test server. The server runs
 * in the test process, so the CLI is always spawned asynchronously (a spawnSync would block the
 * very event loop that has to answer it).
 */

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  json: () => any;
}

/** The environment without any GDFLOW_* setting inherited from the developer's shell. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GDFLOW_')) env[key] = value;
  return { ...env, ...extra };
}

/** The CLI command line, with `--import tsx` made absolute so that it also resolves from a temp dir. */
function commandLine(): string[] {
  return cliCommand().map((part, i, all) => (part === 'tsx' && all[i - 1] === '--import' ? pathToFileURL(join(repoRoot(), 'node_modules', 'tsx', 'dist', 'loader.mjs')).href : part));
}

export function spawnCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildProcess {
  const [command, ...prefix] = commandLine();
  return spawn(command!, [...prefix, ...args], { env: cleanEnv(options.env), cwd: options.cwd ?? repoRoot(), stdio: ['pipe', 'pipe', 'pipe'] });
}

export function collect(child: ChildProcess, input?: string, timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gdflow did not end within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({
        status,
        signal,
        stdout,
        stderr,
        json: () => {
          try {
            return JSON.parse(stdout);
          } catch {
            throw new Error(`stdout is not JSON (exit ${status}):\n${stdout}\nstderr: ${stderr}`);
          }
        },
      });
    });
    if (input !== undefined) child.stdin!.end(input);
    else child.stdin!.end();
  });
}

export function cli(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return collect(spawnCli(args, options), options.input, options.timeoutMs);
}

/** A test server, an account on it, a temp dir, and the environment that points the CLI at them. */
export interface CliFixture {
  server: TestServer;
  account: TestAccount;
  client: Client;
  dir: string;
  env: NodeJS.ProcessEnv;
  run: (args: string[], options?: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }) => Promise<CliResult>;
  close: () => Promise<void>;
}

export async function cliFixture(): Promise<CliFixture> {
  const server = await startTestServer({ cpus: 2 });
  const account = await server.account();
  const dir = mkdtempSync(join(tmpdir(), 'gdflow-cli-test-'));
  const env = {
    // A config file that does not exist: the settings come from the environment.
    GDFLOW_CONFIG_FILE: join(dir, 'no-config.yml'),
    GDFLOW_ENDPOINT: server.url,
    GDFLOW_ACCESS_KEY_ID: account.accessKeyId,
    GDFLOW_ACCESS_KEY_SECRET: account.accessKeySecret,
  };
  const client = new Client({ endpoint: server.url, accessKeyId: account.accessKeyId, accessKeySecret: account.accessKeySecret, retries: 0 });
  return {
    server,
    account,
    client,
    dir,
    env,
    run: (args, options = {}) => cli(args, { env: { ...env, ...options.env }, cwd: dir, ...(options.input !== undefined ? { input: options.input } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) }),
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const requirements = { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '256m', disk: '256m', network: false } };

/** A copy tool in the app: form, and a load → copy → store workflow in the workflow: form. */
export function copyToolYaml(name = 'copyreads', extra = ''): string {
  return `app:
  name: ${name}
  alias: copy reads
  category: test
  description: copies its input
  cmd_template: 'cp {{ inputs.reads[0].path }} {{ outputs.out[0].path }} # {{ parameters.label }} t={{ parameters.threads }}${extra}'
  inputs:
    reads: {type: file, formats: [fastq, fq], minitems: 1, maxitems: 1, required: true}
  outputs:
    out: {type: file, formats: fastq, minitems: 1, maxitems: 1, required: true}
  parameters:
    label: {type: string, default: x}
    threads: {type: integer, default: 2, minvalue: 1, maxvalue: 16}
  requirements:
    container: {image: 'debian:bookworm', type: docker}
    resources: {cpu: 1, mem: 256m, disk: 256m, network: false}
`;
}

export function copyWorkflowYaml(account: string, name = 'copywf', tool = 'copyreads', toolVersion = 1): string {
  return `workflow:
  name: ${name}
  description: copy one file
  nodelist:
    - {node_id: load_reads, app_id: loaddata, name: loaddata, alias: reads, outputs: {data: {enid: reads}}}
    - node_id: copy
      app_id: /${account}/${tool}/${toolVersion}
      alias: copy
      inputs: {reads: [{enid: reads}]}
      outputs: {out: [{enid: copied}]}
      parameters: {threads: {value: 2, variable: true}, label: {value: hi, variable: true}}
    - {node_id: save, app_id: storedata, name: storedata, inputs: {data: {enid: copied}}}
`;
}

export function writeFile(dir: string, name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/**
 * An HTTP proxy in front of the server that forwards everything until `failAfter` task
 * submissions have been forwarded, then drops every further connection (the server going away
 * in the middle of a batch); `delayMs` slows every submission down.
 */
export async function flakyProxy(target: string, options: { failAfter?: number; delayMs?: number }): Promise<{ url: string; forwarded: () => number; close: () => Promise<void> }> {
  const upstream = new URL(target);
  let submissions = 0;
  const server: Server = createServer(async (req, res) => {
    const isSubmission = req.method === 'POST' && /\/tasks\/$/.test(req.url ?? '');
    if (isSubmission && options.failAfter !== undefined && submissions >= options.failAfter) {
      req.socket.destroy();
      return;
    }
    if (isSubmission) submissions++;
    // A slow server: each submission waits before it is forwarded.
    if (isSubmission && options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    forwarded: () => submissions,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
