import type { FetchHosts } from '../domain/ga4gh/fetch-hosts.js';

/**
 * GET an http(s) URL for a TES input or a WES workflow document, only from the hosts the operator allows
 * (domain/ga4gh/fetch-hosts.ts): redirects are followed by hand, each one checked, so that an allowed host cannot send
 * the server to one that is not.
 */

const MAX_REDIRECTS = 5;

export class RemoteFetch {
  constructor(readonly hosts: FetchHosts) {}

  /** The answer to GET `url` after its redirects; a host not allowed, or an answer that is not a 2xx, is an error. */
  async get(url: string, signal?: AbortSignal): Promise<Response> {
    let current = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (!this.hosts.allows(current)) throw new Error(`${current.slice(0, 200)}: this server does not fetch from that host (--fetch-hosts)`);
      const response = await fetch(current, { redirect: 'manual', ...(signal ? { signal } : {}) });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel();
        current = new URL(location, current).href;
        continue;
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new Error(`GET ${current.slice(0, 200)} answered ${response.status}`);
      }
      return response;
    }
    throw new Error(`GET ${url.slice(0, 200)}: more than ${MAX_REDIRECTS} redirects`);
  }

  /** A document's text, at most `maxBytes` of it (a longer one is an error). */
  async text(url: string, maxBytes: number): Promise<string> {
    const response = await this.get(url, AbortSignal.timeout(60_000));
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new Error(`${url.slice(0, 200)} is larger than ${maxBytes} bytes`);
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}
