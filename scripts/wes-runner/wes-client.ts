import { openAsBlob } from 'node:fs';
import type { TransferProgress } from '../../src/cli/commands/data/transfer.js';
import { saveResponse } from '../../src/cli/commands/data/transfer.js';
import type { OutputFiles } from '../../src/cli/cwl/output-downloads.js';
import { parseExactJson, stringifyExactJson } from '../../src/contract/exact-json.js';
import type { WesRequest } from './attachments.js';

/**
 * The few WES 1.1 calls a cwl-runner makes (POST /runs, GET /runs/{id}/status and /runs/{id}), with Basic
 * credentials (docs/ga4gh.md, "Authentication"), and the run's output files read from the URLs the RunLog gives.
 */

/** States after which a run does not change. */
export const TERMINAL = new Set(['COMPLETE', 'EXECUTOR_ERROR', 'SYSTEM_ERROR', 'CANCELED', 'PREEMPTED']);

/**
 * What gdflow says (its UnsupportedRequirement error, docs/api.md) when a document needs a feature it does not support:
 * WES's ErrorResponse has only `msg` and `status_code`, so this message is the one way a WES client tells it apart.
 */
export const UNSUPPORTED_MESSAGE = 'The document needs a feature gdflow does not support';

/** A WES answer that was not a success: its status and ErrorResponse `msg`. */
export class WesError extends Error {
  constructor(
    readonly status: number,
    readonly msg: string,
  ) {
    super(`WES answered ${status}: ${msg}`);
    this.name = 'WesError';
  }
}

export class WesClient {
  private readonly authorization: string;
  readonly base: string;

  constructor(endpoint: string, user: string, password: string) {
    this.base = `${endpoint.replace(/\/+$/, '')}/ga4gh/wes/v1`;
    this.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }

  /** GET (or POST) with the credentials; a non-2xx answer is a WesError with the server's msg. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const response = await fetch(url, { ...init, headers: { authorization: this.authorization, ...(init.headers as Record<string, string>) } });
    if (response.ok) return response;
    const text = await response.text();
    let msg = text;
    try {
      const body = JSON.parse(text) as { msg?: unknown };
      if (typeof body.msg === 'string') msg = body.msg;
    } catch {
      // Not an ErrorResponse (a proxy's page): its text is the message.
    }
    throw new WesError(response.status, msg.slice(0, 4000));
  }

  /** Read exactly: an output's integer beyond 2^53 (a double's 1e42 written as digits) is printed as the server wrote it. */
  async json<T>(url: string, init: RequestInit = {}): Promise<T> {
    return parseExactJson(await (await this.fetch(url, init)).text()) as T;
  }

  /** POST /runs as WES's multipart form, the files attached under their relative paths. */
  async startRun(request: WesRequest): Promise<string> {
    const form = new FormData();
    form.append('workflow_type', 'CWL');
    if (request.cwlVersion !== '') form.append('workflow_type_version', request.cwlVersion);
    form.append('workflow_url', request.workflowUrl);
    form.append('workflow_params', stringifyExactJson(request.params));
    for (const [name, path] of request.attachments) form.append('workflow_attachment', await openAsBlob(path), name);
    const { run_id } = await this.json<{ run_id: string }>(`${this.base}/runs`, { method: 'POST', body: form });
    return run_id;
  }

  /** Polls the run's status (every 100 ms at first, then less often, up to 2 s) until it is terminal. */
  async waitForRun(runId: string): Promise<string> {
    for (let delay = 100; ; delay = Math.min(delay * 1.5, 2000)) {
      const { state } = await this.json<{ state: string }>(`${this.base}/runs/${encodeURIComponent(runId)}/status`);
      if (TERMINAL.has(state)) return state;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  async runLog(runId: string): Promise<Record<string, unknown>> {
    return this.json(`${this.base}/runs/${encodeURIComponent(runId)}`);
  }

  async cancel(runId: string): Promise<void> {
    await this.fetch(`${this.base}/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST' });
  }
}

/**
 * A RunLog's output files: a File's `location` is the URL of its data store item, a Directory's the URL that lists
 * the items below it (`.../data/?prefix=P/`: GeneDock's data list, `{items: [{name: 'ACCOUNT:/path', ...}]}`), all read
 * with the WES credentials.
 */
export class WesOutputFiles implements OutputFiles {
  readonly kind = 'an http(s) URL';
  constructor(private readonly client: WesClient) {}

  owns(location: string): boolean {
    return /^https?:\/\//.test(location);
  }

  nameOf(location: string): string {
    const path = new URL(location).pathname;
    return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
  }

  async download(location: string, target: string, progress: TransferProgress): Promise<void> {
    await saveResponse(await this.client.fetch(location), target, progress);
  }

  async list(location: string): Promise<Array<{ location: string; relative: string }>> {
    const url = new URL(location);
    const prefix = url.searchParams.get('prefix') ?? '';
    const dataUrl = `${url.origin}${url.pathname.replace(/\/$/, '')}`;
    const { items } = await this.client.json<{ items: Array<{ name: string }> }>(location);
    return items.map((item) => {
      const path = item.name.slice(item.name.indexOf(':') + 1);
      return { location: `${dataUrl}${path.split('/').map(encodeURIComponent).join('/')}`, relative: path.slice(prefix.length) };
    });
  }
}
