/**
 * The browser globals that bench:console's page functions use, typed. Those functions run in Chromium (Playwright
 * serializes them), but they are compiled with the Node code, without TypeScript's DOM library (which would let the
 * Node code reach for `document` too). Types only: a page function casts `globalThis` to PageGlobals, and the cast
 * is erased, so nothing from outside the function reaches the page.
 */

export interface PageEntry {
  readonly name: string;
  readonly startTime: number;
  readonly duration: number;
  /** Marks: what the console put in the mark (the graph page: its layout time). */
  readonly detail?: { readonly layoutMs?: number } | null;
}

/** A resource or navigation entry (PerformanceResourceTiming): when its response ended and what it cost on the wire. */
export interface PageResourceEntry extends PageEntry {
  readonly initiatorType: string;
  readonly responseEnd: number;
  readonly transferSize?: number;
}

export interface PagePerformance {
  getEntriesByName(name: string): PageEntry[];
  getEntriesByType(type: 'resource' | 'navigation'): PageResourceEntry[];
  mark(name: string): void;
  clearMarks(): void;
  clearResourceTimings(): void;
}

export interface PageElement {
  readonly textContent: string | null;
  readonly dataset: Readonly<Record<string, string | undefined>>;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  getAttribute(name: string): string | null;
  click(): void;
}

export interface PageGlobals {
  readonly performance: PagePerformance;
  readonly location: { hash: string };
  readonly document: PageElement;
  readonly sessionStorage: Readonly<Record<string, string>>;
  /** Long tasks the bench's init script records: [start, duration] in ms. */
  readonly __benchLongTasks?: Array<[number, number]>;
}
