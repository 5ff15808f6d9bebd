/**
 * Which hosts the server may fetch http(s) URLs from, for TES inputs and WES workflow_url (docs/ga4gh.md, "Fetching
 * over http(s)"): the operator's `--fetch-hosts`, comma-separated entries of
 *
 *   host         any port of that host (a name or an address; IPv6 in brackets: [::1])
 *   host:port    that port only
 *   *.domain     any host below domain (not domain itself)
 *   *            any host
 *
 * Nothing is allowed by default: a server that fetches what its clients name reaches its own network for them.
 */
export class FetchHosts {
  private constructor(private readonly entries: readonly string[]) {}

  static parse(list: string): FetchHosts {
    return new FetchHosts(
      list
        .split(',')
        .map((entry) => entry.trim().toLowerCase())
        .filter((entry) => entry !== ''),
    );
  }

  /** Whether nothing may be fetched. */
  get none(): boolean {
    return this.entries.length === 0;
  }

  /** The entries, as service-info shows them. */
  get list(): readonly string[] {
    return this.entries;
  }

  /** Whether `url` (http or https) may be fetched. */
  allows(url: string): boolean {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
    const host = parsed.hostname.toLowerCase();
    const port = parsed.port !== '' ? parsed.port : parsed.protocol === 'https:' ? '443' : '80';
    return this.entries.some((entry) => {
      if (entry === '*') return true;
      const colon = entry.lastIndexOf(':');
      const [name, wanted] = colon > entry.lastIndexOf(']') && colon !== -1 ? [entry.slice(0, colon), entry.slice(colon + 1)] : [entry, undefined];
      if (wanted !== undefined && wanted !== port) return false;
      return name.startsWith('*.') ? host.endsWith(name.slice(1)) : host === name;
    });
  }
}
