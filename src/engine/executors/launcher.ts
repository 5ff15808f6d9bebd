/**
 * Starts job processes through a small long-lived helper process (launcher-child.ts) instead of
 * forking the server.
 *
 * Why: a spawn blocks the calling thread until the child has exec'd (libuv forks, then waits for the
 * exec to succeed or fail). Measured in the server on the development machine, that was 2-4 ms of
 * event-loop time per job, against about 0.3 ms for the message to a helper, which does the fork
 * beside the event loop (BENCHMARKS.md, bench:engine). The helper also opens the log files, so a job
 * start is one message out and two back ("spawned", then "exit").
 *
 * Everything else about a job (its cgroup, signals, the process-tree sweep) stays in the server,
 * which signals the job's processes by pid as before.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LaunchReply, LaunchRequest } from './launcher-protocol.js';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the launcher died before the process's end could be reported. */
  lost?: string;
}

export interface LaunchedProcess {
  pid: number;
  exited: Promise<ProcessExit>;
}

export class LaunchError extends Error {
  constructor(
    /** 'log': a log file could not be opened; 'spawn': the command could not be started; 'launcher': the helper failed. */
    readonly stage: 'log' | 'spawn' | 'launcher',
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  resolveSpawn: (launched: LaunchedProcess) => void;
  rejectSpawn: (error: LaunchError) => void;
  resolveExit?: (exit: ProcessExit) => void;
}

const CHILD_SCRIPT = fileURLToPath(new URL('./launcher-child.js', import.meta.url));

export class Launcher {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** The helper's pid while it runs (never one of a job's processes, whatever a listing shows). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Start `file` with the request's arguments, environment, working directory and log files. */
  launch(request: Omit<LaunchRequest, 'id'>): Promise<LaunchedProcess> {
    const child = this.ensureChild();
    const id = this.nextId++;
    return new Promise<LaunchedProcess>((resolveSpawn, rejectSpawn) => {
      this.pending.set(id, { resolveSpawn, rejectSpawn });
      this.updateRef();
      child.send({ ...request, id } satisfies LaunchRequest, (error) => {
        if (error) this.settleFailed(id, new LaunchError('launcher', `could not reach the process launcher: ${error.message}`));
      });
    });
  }

  /** End the helper (after the jobs it started have ended). */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    child.ref(); // wait for it, even when nothing else keeps the event loop alive
    if (child.connected) child.disconnect();
    await exited;
  }

  private ensureChild(): ChildProcess {
    if (this.child) return this.child;
    // execArgv [] : the server's own Node flags (a profiler, say) are not the helper's.
    const child = fork(CHILD_SCRIPT, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
    this.child = child;
    child.on('message', (reply: LaunchReply) => this.onReply(reply));
    child.once('exit', (code, signal) => this.lost(child, `the process launcher exited (${signal ?? `code ${code}`}) before the job ended`));
    child.on('error', (error) => {
      // A helper that could not be started at all never emits 'exit'; later errors come with one (or through
      // the send callback).
      if (child.pid === undefined) this.lost(child, `the process launcher could not be started: ${error.message}`);
    });
    return child;
  }

  /** The helper is gone: every job it had is over for the server (failed with `why`); the next launch starts a new one. */
  private lost(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    for (const [id, entry] of [...this.pending]) {
      this.pending.delete(id);
      if (entry.resolveExit) entry.resolveExit({ code: null, signal: null, lost: why });
      else entry.rejectSpawn(new LaunchError('launcher', why));
    }
  }

  private onReply(reply: LaunchReply): void {
    const entry = this.pending.get(reply.id);
    if (!entry) return;
    switch (reply.type) {
      case 'spawned':
        entry.resolveSpawn({ pid: reply.pid, exited: new Promise<ProcessExit>((resolve) => (entry.resolveExit = resolve)) });
        return;
      case 'failed':
        if (!entry.resolveExit) this.settleFailed(reply.id, new LaunchError(reply.stage, reply.message));
        return;
      case 'exit':
        this.pending.delete(reply.id);
        entry.resolveExit?.({ code: reply.code, signal: reply.signal });
        this.updateRef();
        return;
    }
  }

  private settleFailed(id: number, error: LaunchError): void {
    const entry = this.pending.get(id);
    if (!entry || entry.resolveExit) return;
    this.pending.delete(id);
    entry.rejectSpawn(error);
    this.updateRef();
  }

  /** The helper keeps the server's event loop alive only while jobs it started are running. */
  private updateRef(): void {
    const child = this.child;
    if (!child) return;
    const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (this.pending.size > 0) {
      child.ref();
      channel?.ref?.();
    } else {
      child.unref();
      channel?.unref?.();
    }
  }
}
