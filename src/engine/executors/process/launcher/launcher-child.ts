/**
 * The Node launcher process (see launcher.ts): starts the job processes on the server's behalf when the
 * native launcher (native/gdflow-spawn.c) has not been built. Same protocol (launcher-protocol.ts) and
 * the same behaviour, except for how a job gets into its cgroups (below).
 *
 * It reads requests from stdin, opens the job's two log files (created or truncated, never through a
 * symlink), starts the process detached (its own process group) with those files as stdout and stderr,
 * and reports "spawned" (with the pid) or "failed", then "exit", on stdout.
 *
 * Node runs no code in a child between fork and exec, so to have a job born in its cgroups this process
 * moves itself into them, forks, and moves itself back.
 *
 * It ignores SIGINT, SIGTERM and SIGHUP (a Ctrl-C in the server's terminal reaches the whole
 * foreground process group): the server decides when jobs end. At the end of its input (the server
 * exited, or was killed) it SIGKILLs the process group of every job it still has and exits, so no job
 * outlives its server.
 *
 * Keep this file free of imports beyond Node's own modules and the protocol: it should start fast and stay small.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants as fsConstants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { decodeRequests, encodeReply, type DecodedRequest, type LaunchReply } from './launcher-protocol.js';

const live = new Map<number, ChildProcess>();

function send(reply: LaunchReply): void {
  process.stdout.write(encodeReply(reply));
}

function openLog(path: string): number {
  mkdirSync(dirname(path), { recursive: true });
  const flags = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC | fsConstants.O_NOFOLLOW | fsConstants.O_APPEND;
  return openSync(path, flags, 0o644);
}

/** Moves this process into the groups of these `cgroup.procs` files. */
function moveSelf(procsFiles: string[]): void {
  for (const file of procsFiles) writeFileSync(file, String(process.pid));
}

/**
 * Moves this process back to its own groups, the server's: a job's group is <server's group>/gdflow-jobs/<job>
 * (tracking/cgroup.ts). If that fails it must not go on: the server kills whatever is in a job's group when the job ends.
 * It exits; the server starts a new launcher.
 */
function leaveJobGroups(request: DecodedRequest): void {
  if (request.cgroups.length === 0) return;
  try {
    moveSelf(request.cgroups.map((file) => join(dirname(dirname(dirname(file))), 'cgroup.procs')));
  } catch (error) {
    process.stderr.write(`gdflow launcher: cannot leave the cgroup of a job (${(error as Error).message}); exiting\n`);
    process.exit(70);
  }
}

function launch(request: DecodedRequest): void {
  const fds: number[] = [];
  try {
    fds.push(openLog(request.stdoutLog));
    fds.push(openLog(request.stderrLog));
  } catch (error) {
    for (const fd of fds) closeSync(fd);
    send({ id: request.id, type: 'failed', stage: 'log', message: (error as Error).message });
    return;
  }
  let child: ChildProcess;
  try {
    try {
      moveSelf(request.cgroups);
    } catch (error) {
      throw new Error(`cannot join the job's cgroup: ${(error as Error).message}`, { cause: error });
    }
    child = spawn(request.file, request.args, { cwd: request.cwd, env: request.env, detached: true, stdio: ['ignore', fds[0], fds[1]] });
  } catch (error) {
    send({ id: request.id, type: 'failed', stage: 'spawn', message: (error as Error).message });
    return;
  } finally {
    leaveJobGroups(request);
    for (const fd of fds) closeSync(fd);
  }
  let spawned = false;
  if (child.pid !== undefined) live.set(request.id, child);
  child.once('error', (error) => {
    if (spawned) return; // only a failed start is reported: the server signals jobs itself, by pid
    live.delete(request.id);
    send({ id: request.id, type: 'failed', stage: 'spawn', message: error.message });
  });
  child.once('spawn', () => {
    spawned = true;
    send({ id: request.id, type: 'spawned', pid: child.pid! });
  });
  child.once('exit', (code, signal) => {
    if (!spawned) return;
    live.delete(request.id);
    send({ id: request.id, type: 'exit', code, signal });
  });
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => undefined);

// A reply that cannot be written means the server is gone; the end of stdin follows and ends the jobs.
process.stdout.on('error', () => undefined);

let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk: Buffer) => {
  const { requests, rest } = decodeRequests(pending.length ? Buffer.concat([pending, chunk]) : chunk);
  pending = Buffer.from(rest);
  for (const request of requests) launch(request);
});
process.stdin.on('end', () => {
  for (const child of live.values()) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  process.exit(0);
});
