/**
 * The messages between the server (launcher.ts) and its launcher process: the native one
 * (native/gdflow-spawn.c) or the Node one (launcher-child.ts), which speak the same protocol over
 * the launcher's stdin and stdout.
 *
 * - A request is a list of NUL-terminated fields (paths, arguments and environment entries cannot
 *   contain NUL, so nothing needs escaping): "L", id, file, cwd, stdoutLog, stderrLog, then three
 *   counted lists: args, environment ("NAME=value"), cgroup.procs files to join.
 * - A reply is one line: "S <id> <pid>" (spawned: exec'd), "F <id> log|spawn <message>" (failed),
 *   "E <id> <code> <signal>" (ended; code -1 when killed by a signal, signal 0 when not).
 */
import { constants as osConstants } from 'node:os';

export interface LaunchRequest {
  id: number;
  file: string;
  args: string[];
  cwd: string;
  /** The complete environment (nothing is inherited from the launcher). */
  env: Record<string, string>;
  /** Host paths of the log files that become stdout and stderr. */
  stdoutLog: string;
  stderrLog: string;
  /**
   * The `cgroup.procs` files of the job's cgroup v1 groups: the job is in them from its first instruction (the
   * native launcher's child joins them before it execs; the Node launcher moves itself into them to fork and back
   * to its own groups, the server's, afterwards: see launcher-child.ts).
   */
  cgroups?: string[];
}

export type LaunchReply =
  | { id: number; type: 'spawned'; pid: number }
  /** stage 'log': a log file could not be opened; 'spawn': the process could not be started. */
  | { id: number; type: 'failed'; stage: 'log' | 'spawn'; message: string }
  | { id: number; type: 'exit'; code: number | null; signal: NodeJS.Signals | null };

export function encodeRequest(request: LaunchRequest): Buffer {
  const fields: string[] = ['L', String(request.id), request.file, request.cwd, request.stdoutLog, request.stderrLog];
  fields.push(String(request.args.length), ...request.args);
  const env = Object.entries(request.env);
  fields.push(String(env.length));
  for (const [name, value] of env) fields.push(`${name}=${value}`);
  const cgroups = request.cgroups ?? [];
  fields.push(String(cgroups.length), ...cgroups);
  for (const field of fields) if (field.includes('\0')) throw new Error('a launch request field contains a NUL character');
  return Buffer.from(`${fields.join('\0')}\0`);
}

/** A request as the launcher reads it (an absent cgroup list arrives empty). */
export type DecodedRequest = LaunchRequest & { cgroups: string[] };

/**
 * The request that starts at `pos`, and where it ends; undefined when not all of its bytes have
 * arrived yet. A malformed request throws.
 */
function decodeRequest(buffer: Buffer, pos: number): { request: DecodedRequest; end: number } | undefined {
  let p = pos;
  const next = (): string | undefined => {
    const nul = buffer.indexOf(0, p);
    if (nul < 0) return undefined;
    const field = buffer.toString('utf8', p, nul);
    p = nul + 1;
    return field;
  };
  const fields: string[] = [];
  for (let i = 0; i < 6; i++) {
    const field = next();
    if (field === undefined) return undefined;
    fields.push(field);
  }
  const lists: string[][] = [];
  for (let l = 0; l < 3; l++) {
    const count = next();
    if (count === undefined) return undefined;
    if (!/^\d+$/.test(count)) throw new Error('malformed launch request');
    const list: string[] = [];
    for (let i = 0; i < Number(count); i++) {
      const item = next();
      if (item === undefined) return undefined;
      list.push(item);
    }
    lists.push(list);
  }
  const [type, id, file, cwd, stdoutLog, stderrLog] = fields as [string, string, string, string, string, string];
  if (type !== 'L' || !/^\d+$/.test(id)) throw new Error('malformed launch request');
  const env: Record<string, string> = {};
  for (const entry of lists[1]!) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return { request: { id: Number(id), file, cwd, stdoutLog, stderrLog, args: lists[0]!, env, cgroups: lists[2]! }, end: p };
}

/**
 * Takes the complete requests off the front of `buffer`; returns them and the bytes left over. A malformed
 * request throws.
 */
export function decodeRequests(buffer: Buffer): { requests: DecodedRequest[]; rest: Buffer } {
  const requests: DecodedRequest[] = [];
  let pos = 0;
  for (let decoded = decodeRequest(buffer, pos); decoded; decoded = decodeRequest(buffer, pos)) {
    requests.push(decoded.request);
    pos = decoded.end;
  }
  return { requests, rest: buffer.subarray(pos) };
}

export function encodeReply(reply: LaunchReply): string {
  switch (reply.type) {
    case 'spawned':
      return `S ${reply.id} ${reply.pid}\n`;
    case 'failed':
      return `F ${reply.id} ${reply.stage} ${reply.message.replace(/\n/g, ' ')}\n`;
    case 'exit':
      return `E ${reply.id} ${reply.code ?? -1} ${reply.signal ? osConstants.signals[reply.signal] : 0}\n`;
  }
}

const signalNames = new Map<number, NodeJS.Signals>();
for (const [name, num] of Object.entries(osConstants.signals)) if (!signalNames.has(num)) signalNames.set(num, name as NodeJS.Signals);

/** One reply line (without its newline); undefined when it is not one. */
export function parseReply(line: string): LaunchReply | undefined {
  let m = /^S (\d+) (\d+)$/.exec(line);
  if (m) return { id: Number(m[1]), type: 'spawned', pid: Number(m[2]) };
  m = /^F (\d+) (log|spawn) (.*)$/.exec(line);
  if (m) return { id: Number(m[1]), type: 'failed', stage: m[2] as 'log' | 'spawn', message: m[3]! };
  m = /^E (\d+) (-?\d+) (\d+)$/.exec(line);
  if (m) {
    const code = Number(m[2]);
    const signal = Number(m[3]);
    return { id: Number(m[1]), type: 'exit', code: code < 0 ? null : code, signal: signal ? (signalNames.get(signal) ?? null) : null };
  }
  return undefined;
}
