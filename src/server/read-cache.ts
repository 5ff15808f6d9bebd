import type { FastifyReply, FastifyRequest } from 'fastify';
import { signedCaller } from './plugins/authentication.js';
import { stringifyExactJson } from '../contract/exact-json.js';

/**
 * The rendered JSON of reads whose answer depends only on stored definitions and on the request:
 * the caller's account, the Host (links in answers are built from it) and the raw request target.
 * Tool and workflow reads (GetTool, ListTool, GetWorkflow, ...) are such reads; task reads are not
 * (their answers change as jobs run).
 *
 * A hit answers without running the route's domain code again (name checks, the project and
 * version look-ups, the view and its JSON): for a GetTool that is about a sixth of the server's CPU
 * per request. Entries live for one generation of the store's read cache, which moves on every
 * write made through this server and, within the store cache's check interval, on writes made by
 * other processes, so an answer here is never staler than the store cache it was read from.
 */
export class ReadCache {
  private generation = Number.NaN;
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    /** The store cache's generation (Store.cacheGeneration). */
    private readonly storeGeneration: () => number,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  /** The current generation, dropping every entry of an earlier one. */
  private current(): number {
    const generation = this.storeGeneration();
    if (generation !== this.generation) {
      this.generation = generation;
      this.entries.clear();
      this.bytes = 0;
    }
    return generation;
  }

  get(key: string): Buffer | undefined {
    this.current();
    return this.entries.get(key);
  }

  /** Where a read starts: the generation to hand to set() with its answer. */
  begin(): number {
    return this.current();
  }

  /** Keep an answer read at `generation`, unless a write has happened since (it may predate it). */
  set(key: string, generation: number, body: Buffer): void {
    // Keys count too: a request target can be 16 KiB long, much longer than the answer. Two
    // concurrent misses of one key keep the first answer (both read the same generation).
    const size = body.length + 2 * key.length;
    if (this.current() !== generation || size > this.maxBytes / 16 || this.entries.has(key)) return;
    if (this.bytes + size > this.maxBytes) {
      this.entries.clear();
      this.bytes = 0;
    }
    this.entries.set(key, body);
    this.bytes += size;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Who asks and for what: everything a cacheable answer depends on besides the stored data. */
function keyOf(request: FastifyRequest): string {
  return `${signedCaller(request)?.accountName ?? ''}\n${request.headers.host ?? ''}\n${request.raw.url ?? ''}`;
}

/**
 * A route handler for a cacheable read: answer from the cache, or run `read` and keep its JSON.
 * Without a cache (a store that has no generation), it runs `read` every time.
 */
export function cachedReadHandler<R extends FastifyRequest>(cache: ReadCache | undefined, read: (request: R) => Promise<unknown>) {
  if (!cache) {
    return async (request: R, reply: FastifyReply): Promise<void> => {
      reply.type(JSON_TYPE).send(stringifyExactJson(await read(request)));
    };
  }
  // Both paths send the reply themselves and return nothing, as Fastify asks of such handlers.
  return (request: R, reply: FastifyReply): Promise<void> | undefined => {
    const key = keyOf(request);
    const hit = cache.get(key);
    if (hit) {
      // Answered without a promise or a trip through the microtask queue.
      reply.type(JSON_TYPE).send(hit);
      return undefined;
    }
    const generation = cache.begin();
    return read(request).then((answer) => {
      const body = Buffer.from(stringifyExactJson(answer), 'utf8');
      cache.set(key, generation, body);
      reply.type(JSON_TYPE).send(body);
    });
  };
}
