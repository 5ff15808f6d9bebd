/**
 * Keeps the executors' bookkeeping of many jobs from holding the event loop for long in one go.
 *
 * Each piece of work (one job's sample, one step of a job's sweep, a slice of a /proc scan) is small, but a
 * thousand of them due at the same moment (a sampling tick; a thousand jobs ending, or stopped, at once: the
 * launcher reports their exits in one read) would run back to back in one turn of the event loop, and every
 * HTTP request would wait behind them all. Such work goes through `budgeted()`.
 *
 * Pieces run in the order they were queued, each in its own setImmediate callback: Node runs the microtasks a
 * callback left (the awaiting code that goes on with a piece's result, and whatever that calls) before the next
 * callback, so they count against the budget too. Once BUDGET_MS have passed since the first piece of a check
 * phase, the rest wait for the next one, after the event loop has polled for I/O (that is, served requests).
 * At most SLOTS immediates are queued at a time, so that deferring the rest costs little however many wait.
 */

/** How long queued work (with what it triggers) may run in one check phase. */
const BUDGET_MS = 4;
/** Pieces given an immediate at a time. */
const SLOTS = 64;

type Piece = () => void;

const waiting: Piece[] = [];
let head = 0;
/** Immediates queued for pieces and not yet run. */
let inFlight = 0;
/** A reset is queued ahead of the immediates of the coming check phase. */
let resetQueued = false;
/** When the first piece of this check phase ran; undefined until one has. */
let phaseStarted: number | undefined;

function reset(): void {
  resetQueued = false;
  phaseStarted = undefined;
}

/** Queues immediates for waiting pieces, behind a reset, so that they run in the coming check phase with a fresh budget. */
function schedule(): void {
  if (!resetQueued) {
    resetQueued = true;
    setImmediate(reset);
  }
  while (inFlight < SLOTS && inFlight < waiting.length - head) {
    inFlight++;
    setImmediate(runOne);
  }
}

function runOne(): void {
  inFlight--;
  const now = performance.now();
  phaseStarted ??= now;
  if (now - phaseStarted >= BUDGET_MS) {
    schedule(); // (from a check-phase callback, an immediate runs in the next loop iteration)
    return;
  }
  const piece = waiting[head];
  if (!piece) return;
  waiting[head++] = noop; // let it be collected
  if (head === waiting.length) {
    waiting.length = 0;
    head = 0;
  } else if (head > 1024) {
    waiting.splice(0, head);
    head = 0;
  }
  piece();
  if (inFlight === 0 && head < waiting.length) schedule();
}

const noop: Piece = () => undefined;

/**
 * Runs `piece` (synchronous and short: a few /proc or cgroupfs reads) soon, within the turn budget; resolves with
 * its result, or rejects with what it threw. Queue many pieces at once rather than awaiting each before queueing
 * the next: pieces queued together share a check phase, pieces queued one after the other get one each.
 */
export function budgeted<T>(piece: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    waiting.push(() => {
      try {
        resolve(piece());
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on what the piece threw, unchanged, as a direct call would
        reject(error);
      }
    });
    schedule();
  });
}
