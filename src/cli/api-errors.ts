import type { GdApiError } from '../client/errors.js';

/**
 * What the CLI says when the server refuses a request's credentials. The server's own message names the string to
 * sign of the request it refused, which may be one the CLI made on its own (GET /miscellaneous/credentials/, to learn
 * the key's account) and tells a user nothing: name the command the user ran and what to check instead.
 */
const HINTS: Record<string, string> = {
  SignatureDoesNotMatch:
    'the access key secret does not match the access key id: check access_key_secret (gdflow config show; GDFLOW_ACCESS_KEY_SECRET; --profile)',
  InvalidAccessKeyId: 'the server does not know this access key, or it was revoked: check access_key_id (gdflow config show; GDFLOW_ACCESS_KEY_ID; --profile)',
  RequestTimeTooSkewed: "this machine's clock is too far from the server's: set it right (e.g. with NTP)",
};

/** The CLI's message for an API error: the server's, or for a refused credential, the command and a hint. */
export function describeApiError(error: GdApiError, argv: readonly string[]): string {
  const hint = HINTS[error.errorCode];
  if (!hint) return error.message;
  const command = ['gdflow', ...argv.slice(2)].map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)).join(' ');
  const request = error.requestId ? `, request ${error.requestId}` : '';
  return `the server refused the credentials of '${command}' (${error.status} ${error.errorCode}${request})\nhint: ${hint}`;
}
