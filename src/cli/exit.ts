/**
 * Exit codes of every gdflow command, and the error that carries one. Scripts (and `batch`
 * drivers) branch on these, so they are fixed: 0 success; 1 the operation failed (the server
 * refused it, or a task failed); 2 usage or configuration error; 3 the server could not be
 * reached; 33 (`gdflow cwl run`, as every cwl-runner) the document needs a feature gdflow does not
 * support; 130 interrupted (Ctrl-C, 128 + SIGINT as shells report it).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3, unsupported: 33, interrupted: 130 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A mistake in the command line or the files it names: exit code 2. */
export const usageError = (message: string): CliError => new CliError(message, EXIT.usage);

/** What a CWL document or job needs that gdflow does not support: exit code 33, the features named. */
export const unsupportedFeature = (features: readonly string[], detail: string): CliError =>
  new CliError(`unsupported: ${features.join(', ')}: ${detail}`, EXIT.unsupported);

export const EXIT_CODES_HELP = `
Exit codes:
    0  success
    1  the operation failed (the server refused it, or a task failed or was stopped)
    2  usage or configuration error (bad option, bad document, no credentials configured)
    3  the server could not be reached (after retrying)
   33  gdflow cwl run, import: the CWL document needs a feature gdflow does not support (the message names it)
  130  interrupted (Ctrl-C): what was waited for goes on, and the message says how to follow it`;
