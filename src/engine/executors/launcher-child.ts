/**
 * The launcher process (see launcher.ts): a small Node process that starts the job processes on the
 * server's behalf, so that the server's event loop never waits for a fork.
 *
 * It reads requests from its IPC channel, opens the job's two log files (created or truncated,
 * never through a symlink), starts the process detached (its own process group) with those files
 * as stdout and stderr, and reports "spawned" (with the pid) or "failed", then "exit".
 *
 * It ignores SIGINT, SIGTERM and SIGHUP (a Ctrl-C in the server's terminal reaches the whole
 * foreground process group): the server decides when jobs end. When the IPC channel closes (the
 * server exited, or was killed), it SIGKILLs the process group of every job it still has and exits,
 * so no job outlives its server.
 *
 * Keep this file free of imports beyond Node's own modules: it should start fast and stay small.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, constants as fsConstants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LaunchReply, LaunchRequest } from './launcher-protocol.js';

const live = new Map<number, ChildProcess>();

function send(reply: LaunchReply): void {
  if (process.connected) process.send!(reply);
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
 * Moves this process back to its own groups. If that fails it must not go on: the server kills whatever is
 * in a job's group when the job ends. It exits; the server starts a new launcher for the next job.
 */
function leaveJobGroups(request: LaunchRequest): void {
  if (!request.cgroups) return;
  try {
    moveSelf(request.cgroups.leave);
  } catch (error) {
    process.stderr.write(`gdflow launcher: cannot leave the cgroup of a job (${(error as Error).message}); exiting\n`);
    process.exit(70);
  }
}

function launch(request: LaunchRequest): void {
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
    if (request.cgroups) {
      try {
        moveSelf(request.cgroups.join);
      } catch (error) {
        throw new Error(`cannot join the job's cgroup: ${(error as Error).message}`);
      }
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

process.on('message', (message: LaunchRequest) => launch(message));
process.on('disconnect', () => {
  for (const child of live.values()) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  process.exit(0);
});
