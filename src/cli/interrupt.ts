import { CliError, EXIT } from './exit.js';
import { stopAllBars } from './progress.js';

/**
 * Ctrl-C while a command waits for something that goes on without it (a task, a batch of tasks, a transfer): every
 * progress bar is stopped first (its last frame, the cursor shown again, the line ended: the terminal as it was), the
 * waiting ends at once, `cleanUp` removes what the work leaves half done (a part-file), and the command exits 130
 * saying `message()`: what goes on and how to follow it.
 * Outside `work` Ctrl-C keeps its default: the process ends.
 */
export async function interruptible<T>(work: Promise<T>, message: () => string, cleanUp?: () => void): Promise<T> {
  let onSignal: () => void = () => undefined;
  const interrupted = new Promise<never>((_resolve, reject) => {
    onSignal = () => {
      stopAllBars();
      cleanUp?.();
      reject(new CliError(message(), EXIT.interrupted));
    };
  });
  process.once('SIGINT', onSignal);
  try {
    return await Promise.race([work, interrupted]);
  } finally {
    process.removeListener('SIGINT', onSignal);
  }
}
