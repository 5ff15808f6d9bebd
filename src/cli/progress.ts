import cliProgress from 'cli-progress';

/**
 * A progress bar on stderr when it is a terminal (or when forced), and nothing otherwise: logs
 * and pipes get the final summary lines, not a stream of redraws.
 */
export interface Progress {
  update(value: number, payload?: Record<string, string | number>): void;
  setTotal(total: number): void;
  stop(): void;
}

const NONE: Progress = { update: () => undefined, setTotal: () => undefined, stop: () => undefined };

/** The bars on screen, so that an interrupt can put the terminal back however deep the bar was made. */
const active = new Set<cliProgress.SingleBar>();

/** Stop every bar: its last frame, the cursor shown again, the line ended (interrupt.ts, on Ctrl-C). */
export function stopAllBars(): void {
  for (const bar of active) bar.stop();
  active.clear();
}

export function progressEnabled(force?: boolean): boolean {
  return force ?? Boolean(process.stderr.isTTY);
}

/**
 * `format` may use {bar} {percentage} {value} {total} {eta_formatted} {duration_formatted} and
 * the payload's own keys.
 */
export function progressBar(total: number, format: string, options: { enabled?: boolean; payload?: Record<string, string | number> } = {}): Progress {
  if (!(options.enabled ?? progressEnabled())) return NONE;
  const bar = new cliProgress.SingleBar(
    { format, stream: process.stderr, hideCursor: true, barsize: 30, fps: 5, clearOnComplete: false, etaBuffer: 50 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, options.payload ?? {});
  active.add(bar);
  return {
    update: (value, payload) => bar.update(value, payload ?? {}),
    setTotal: (t) => bar.setTotal(t),
    stop: () => {
      active.delete(bar);
      bar.stop();
    },
  };
}
