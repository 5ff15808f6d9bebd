import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * A bystander for the load benchmark: a separate, otherwise idle Node process whose 1 ms timer is late only when
 * the machine is (its two cores busy, the hypervisor elsewhere). How late it is in a window tells how much of a
 * latency tail the machine itself adds, apart from the server. Run as a child: on each "report" line on stdin it
 * answers with one JSON line of the worst delays since the last report.
 */

if (process.argv[2] === 'child') {
  let last = performance.now();
  let delays: number[] = [];
  setInterval(() => {
    const now = performance.now();
    delays.push(now - last - 1);
    last = now;
  }, 1);
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', () => {
    const sorted = delays.sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    process.stdout.write(`${JSON.stringify({ p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 })}\n`);
    delays = [];
  });
  process.stdin.on('end', () => process.exit(0));
}

export interface LagReport {
  p99: number;
  max: number;
}

export class LagProbe {
  private readonly child: ChildProcess;

  constructor() {
    this.child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'child'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.stdout!.setEncoding('utf8');
  }

  /** The worst timer delays since the last call (the first call starts a window). */
  report(): Promise<LagReport> {
    return new Promise((resolve) => {
      this.child.stdout!.once('data', (line: string) => resolve(JSON.parse(line) as LagReport));
      this.child.stdin!.write('report\n');
    });
  }

  close(): void {
    this.child.stdin!.end();
  }
}
