/**
 * Hash routes (`/console/#/tasks/<id>`): the server serves one page, and a reload or a shared link lands on the
 * same view. A route's query (`#/tasks?status=running`) holds a view's filters.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** Path segments, decoded: `#/tools/bwa/2` → ['tools', 'bwa', '2']. */
  parts: string[];
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const q = text.indexOf('?');
  const path = q < 0 ? text : text.slice(0, q);
  return {
    parts: path
      .split('/')
      .filter((p) => p !== '')
      .map((p) => decodeURIComponent(p)),
    query: new URLSearchParams(q < 0 ? '' : text.slice(q + 1)),
  };
}

/** `#/a/b?x=1` from segments (each encoded) and a query (empty values left out). */
export function href(parts: Array<string | number>, query?: Record<string, string | number | undefined>): string {
  const path = parts.map((p) => encodeURIComponent(String(p))).join('/');
  const items = Object.entries(query ?? {}).filter(([, v]) => v !== undefined && v !== '');
  return `#/${path}${items.length ? `?${new URLSearchParams(items.map(([k, v]) => [k, String(v)])).toString()}` : ''}`;
}

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new HashChangeEvent('hashchange'));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}
