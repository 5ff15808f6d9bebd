import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
  return cliCommand().map((part, i, all) =>
    part === 'tsx' && all[i - 1] === '--import' ? pathToFileURL(join(repoRoot(), 'node_modules', 'tsx', 'dist', 'loader.mjs')).href : part,
  );
}

export function spawnCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildProcess {
  const [command, ...prefix] = commandLine();
  return spawn(command!, [...prefix, ...args], { env: cleanEnv(options.env), cwd: options.cwd ?? repoRoot(), stdio: ['pipe', 'pipe', 'pipe'] });
}

/**
 * The CLI with a pseudo-terminal for its stdin, stdout and stderr, as in a user's terminal: util-linux `script`
 * (Debian's bsdutils, an essential package) runs it on a new pty and copies the pty's output to its own stdout and
 * what is written to its stdin into the pty, so a `\x03` written there is a real Ctrl-C (the terminal's line
 * discipline turns it into SIGINT for the CLI). `-e` makes script exit with the CLI's exit code.
 */
export function spawnCliInTerminal(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildProcess {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const line = `exec ${[...commandLine(), ...args].map(quote).join(' ')}`;
  return spawn('script', ['-qec', line, '/dev/null'], { env: cleanEnv(options.env), cwd: options.cwd ?? repoRoot(), stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Why the terminal tests cannot run here, or undefined when `script` is installed. */
export function noTerminal(): string | undefined {
  const probe = spawnSync('script', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? undefined : 'util-linux script (Debian bsdutils) is not installed, so no CLI can be given a pseudo-terminal';
}

/** Resolve once the child's stdout (with `stderr: true`, stderr) holds a match of `pattern`: the text so far. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, options: { stderr?: boolean; timeoutMs?: number } = {}): Promise<string> {
  const stream = options.stderr ? child.stderr! : child.stdout!;
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stream.off('data', onData);
      reject(new Error(`no ${pattern} in the output within ${options.timeoutMs ?? 60_000} ms:\n${text}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (pattern.test(text)) {
        clearTimeout(timer);
        stream.off('data', onData);
        resolve(text);
      }
    };
    stream.on('data', onData);
  });
}

/** The child's exit and output. Its stdin gets `input` and is closed, unless `keepStdin` (a terminal that will get a Ctrl-C). */
export function collect(child: ChildProcess, input?: string, timeoutMs = 120_000, keepStdin = false): Promise<CliResult> {
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
    else if (!keepStdin) child.stdin!.end();
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

/** `settings` override the test server's settings (`{ executor: 'podman', pullPolicy: 'never' }`). */
export async function cliFixture(settings: Parameters<typeof startTestServer>[0] = {}): Promise<CliFixture> {
  const server = await startTestServer({ cpus: 2, ...settings });
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
    run: (args, options = {}) =>
      cli(args, {
        env: { ...env, ...options.env },
        cwd: dir,
        ...(options.input !== undefined ? { input: options.input } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      }),
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

/** A one-tool workflow NAME (tool → store) whose tool NAME_tool runs `command` (no single quotes in it). */
export async function commandWorkflow(f: CliFixture, name: string, command: string): Promise<void> {
  const tool = `app:
  name: ${name}_tool
  cmd_template: '${command}'
  outputs: {out: {type: file, formats: txt}}
  requirements: {container: {image: 'debian:bookworm', type: docker}, resources: {cpu: 1, mem: 256m, disk: 256m}}
`;
  const created = await f.run(['tool', 'create', '-f', writeFile(f.dir, `${name}-tool.yml`, tool)]);
  if (created.status !== 0) throw new Error(`tool ${name}_tool: ${created.stderr}`);
  const workflow = `workflow:
  name: ${name}
  nodelist:
    - {node_id: work, app_id: /${f.account.name}/${name}_tool/1, outputs: {out: [{enid: result}]}}
    - {node_id: save, app_id: storedata, inputs: {data: {enid: result}}}
`;
  const registered = await f.run(['workflow', 'create', '-f', writeFile(f.dir, `${name}-wf.yml`, workflow)]);
  if (registered.status !== 0) throw new Error(`workflow ${name}: ${registered.stderr}`);
}

/** Until the task's job on node `node` runs (polling the API). */
export async function untilJobRuns(f: CliFixture, taskId: string, node: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const { jobs } = await f.client.listJobs(taskId);
    if (jobs.some((j) => j.node_id === node && j.status === 'running')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`job ${node} of task ${taskId} did not start within 60 s`);
}

export function writeFile(dir: string, name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/**
 * An HTTP proxy in front of the server that forwards everything until `failAfter` task
 * submissions have been forwarded, then drops every further connection (the server going away
 * in the middle of a batch); with `holdAfter`, the submissions after that many are held, never
 * forwarded nor answered until the proxy closes (a server that hangs: the client waits, for as long
 * as the test needs, with exactly that many submitted).
 */
export async function flakyProxy(
  target: string,
  options: { failAfter?: number; holdAfter?: number },
): Promise<{ url: string; forwarded: () => number; close: () => Promise<void> }> {
  const upstream = new URL(target);
  let submissions = 0;
  // The handler cannot fail: a forwarding error destroys the response.
  const server: Server = createServer(forwardRequest);
  function forwardRequest(req: IncomingMessage, res: ServerResponse): void {
    const isSubmission = req.method === 'POST' && /\/tasks\/$/.test(req.url ?? '');
    if (isSubmission && options.failAfter !== undefined && submissions >= options.failAfter) {
      req.socket.destroy();
      return;
    }
    // Held: the connection stays open, unanswered, until close() ends it.
    if (isSubmission && options.holdAfter !== undefined && submissions >= options.holdAfter) return;
    if (isSubmission) submissions++;
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    forwarded: () => submissions,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
