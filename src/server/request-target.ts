/**
 * Why a request path has an empty segment (`tools//`, `tasks//jobs/`), or undefined: an empty name or id is
 * refused rather than routed to the collection. Leading slashes are the exception: clients configured with a
 * trailing `/` send `//accounts/...` (docs/wire.md §7).
 */
export function emptySegment(url: string): string | undefined {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  let start = 0;
  while (path.charCodeAt(start) === 0x2f) start++;
  if (path.indexOf('//', start) < 0) return undefined;
  return `the request path has an empty segment (a name or id is missing): ${path.slice(0, 200)}`;
}
