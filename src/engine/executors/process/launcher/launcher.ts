/**
 * Starts job processes through a small long-lived helper process instead of forking the server.
 *
 * Why: a spawn blocks the calling thread until the child has exec'd (libuv forks, then waits for the
 * exec to succeed or fail). Measured in the server on the development machine, that was 2-4 ms of
 * event-loop time per job, against about 0.3 ms for the message to a helper, which does the fork
 * beside the event loop (BENCHMARKS.md, bench:engine). The helper also opens the log files, so a job
 * start is one message out and two back ("spawned", then "exit").
 *
 * Two helpers speak the same protocol (launcher-protocol.ts) over their stdin and stdout:
 * - 'native': native/gdflow-spawn.c, built by `npm run build` when a C compiler is present. Its fork is
 *   cheap (a small process), which saves about a millisecond of CPU per job against Node's (BENCHMARKS.md).
 * - 'node': launcher-child.ts, used when the native one has not been built.
 *
 * Everything else about a job (its cgroup, signals, the process-tree sweep) stays in the server,
 * which signals the job's processes by pid as before.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../../../package-root.js';
import { encodeRequest, parseReply, type LaunchReply, type LaunchRequest } from './launcher-protocol.js';

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

const NODE_LAUNCHER = fileURLToPath(new URL('./launcher-child.js', import.meta.url));

export type LauncherKind = 'native' | 'node';

/** Where `npm run build` puts the native launcher (scripts/build-native.mjs). */
export function nativeLauncherPath(): string {
  return join(packageRoot(), 'dist', 'native', 'gdflow-spawn');
}

/** Whether the native launcher has been built and can be run. */
function nativeLauncherBuilt(): boolean {
  try {
    accessSync(nativeLauncherPath(), fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The native launcher when it has been built and can be run, else the Node one. */
export function defaultLauncherKind(): LauncherKind {
  return nativeLauncherBuilt() ? 'native' : 'node';
}

export class Launcher {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Reply bytes after the last complete line. */
  private partial = '';

  readonly kind: LauncherKind;

  constructor(kind?: LauncherKind) {
    this.kind = kind ?? defaultLauncherKind();
  }

  /** Throws when this launcher cannot run here (the native one asked for but not built). */
  check(): void {
    if (this.kind === 'native' && !nativeLauncherBuilt()) {
      throw new Error(`the native launcher is not built at ${nativeLauncherPath()} (run npm run build with a C compiler installed, or use --launcher node)`);
    }
  }

  /** The helper's pid while it runs (never one of a job's processes, whatever a listing shows). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Start `file` with the request's arguments, environment, working directory and log files. */
  launch(request: Omit<LaunchRequest, 'id'>): Promise<LaunchedProcess> {
    const id = this.nextId++;
    let message: Buffer;
    try {
      message = encodeRequest({ ...request, id });
    } catch (error) {
      return Promise.reject(new LaunchError('spawn', (error as Error).message));
    }
    const child = this.ensureChild();
    return new Promise<LaunchedProcess>((resolveSpawn, rejectSpawn) => {
      this.pending.set(id, { resolveSpawn, rejectSpawn });
      this.updateRef();
      child.stdin!.write(message, (error) => {
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
    child.stdin!.end(); // end of input: the helper exits
    await exited;
  }

  private ensureChild(): ChildProcess {
    if (this.child) return this.child;
    // (The server's own Node flags, a profiler say, are not passed on: spawn does not inherit execArgv.)
    const [file, args] = this.kind === 'native' ? [nativeLauncherPath(), []] : [process.execPath, [NODE_LAUNCHER]];
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child = child;
    this.partial = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.onData(chunk));
    // A write to a helper that died fails; its 'exit' (below) fails the jobs it had.
    child.stdin.on('error', () => undefined);
    child.once('exit', (code, signal) => this.lost(child, `the process launcher exited (${signal ?? `code ${code}`}) before the job ended`));
    child.on('error', (error) => {
      // A helper that could not be started at all never emits 'exit'; later errors come with one (or through
      // the write callback).
      if (child.pid === undefined) this.lost(child, `the process launcher could not be started: ${error.message}`);
    });
    return child;
  }

  private onData(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      const reply = parseReply(line);
      if (reply) this.onReply(reply);
    }
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
    // The pipes are sockets to libuv: each keeps the event loop alive unless unref'd.
    const pipes = [child.stdin, child.stdout] as unknown as ({ ref?: () => void; unref?: () => void } | null)[];
    if (this.pending.size > 0) {
      child.ref();
      for (const pipe of pipes) pipe?.ref?.();
    } else {
      child.unref();
      for (const pipe of pipes) pipe?.unref?.();
    }
  }
}
