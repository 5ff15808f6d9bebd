import assert from 'node:assert/strict';
import { GdApiError } from '../../src/client/errors.js';

/** Await a call that must fail with a GeneDock error of this status and code; returns the error. */
export async function rejectsWith(promise: Promise<unknown>, status: number, code: string, messagePart?: string | RegExp): Promise<GdApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof GdApiError, `expected GdApiError, got ${String(error)}`);
    assert.equal(error.status, status, `status of ${error.message}`);
    assert.equal(error.errorCode, code, `code of ${error.message}`);
    assert.ok(error.errorMessageChs.length > 0, 'error_message_chs is present');
    assert.match(error.requestId ?? '', /^[0-9a-f]{24}$/);
    if (messagePart !== undefined) {
      if (typeof messagePart === 'string') assert.ok(error.errorMessage.includes(messagePart), `'${error.errorMessage}' should include '${messagePart}'`);
      else assert.match(error.errorMessage, messagePart);
    }
    return error;
  }
  assert.fail(`expected a ${status} ${code} error, but the call succeeded`);
}
