/**
 * The authentication plugin: every route not marked `auth: false` checks the request's signature before anything
 * else (auth.ts), and the request carries who signed it and, on the routes of a project, where it points. Routes read
 * `request.caller` and `request.scope`; nothing is passed around or imported from the app for it.
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { Caller } from '../../domain/access.js';
import { invalid } from '../../domain/errors.js';
import type { Scope } from '../../domain/tools/service.js';
import { contentMd5 } from '../../signing/index.js';
import { verifyRequest, verifyRequestNow, type VerifyOptions } from '../auth.js';
import { httpError } from '../errors.js';
import { verifyGa4gh, verifyGa4ghNow, type Ga4ghVerifyOptions } from '../ga4gh-auth.js';
import { emptySegment } from '../request-target.js';

/** Where the verified caller is kept: a symbol, so that only this file writes it. */
const SIGNED_BY = Symbol('gdflow.signedBy');

declare module 'fastify' {
  interface FastifyRequest {
    [SIGNED_BY]: Caller | null;
    /** The account whose key signed the request. Set before the handler of every signed route; read on an unsigned one, a MissingAuthorization. */
    readonly caller: Caller;
    /** The caller and the project a route under /accounts/:account/projects/:project/ addresses, and the base URL of links. */
    readonly scope: Scope;
  }
}

export interface AuthenticationOptions extends VerifyOptions {
  /** Base URL for links in responses; default: the request's protocol and Host. */
  publicUrl?: string | undefined;
  /** How the GA4GH routes (config `auth: 'ga4gh'`) look up Bearer tokens; they take Basic and Bearer besides the signature (ga4gh-auth.ts). */
  tokens: Pick<Ga4ghVerifyOptions, 'lookupToken' | 'peekToken'>;
}

type Verify<O> = { now: (request: FastifyRequest, options: O) => Caller | undefined; later: (request: FastifyRequest, options: O) => Promise<Caller> };

/** The caller of a request whose signature was verified, or undefined (an unsigned route, or a refused request): for hooks that see both. */
export function signedCaller(request: FastifyRequest): Caller | undefined {
  return request[SIGNED_BY] ?? undefined;
}

const EMPTY_MD5 = contentMd5('');

/** Whether a body follows the headers (as Node's parser decides: a length above 0, or chunked). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

/** What a signed request must also be, once its caller is known; the reason when it is not. */
function checkSigned(request: FastifyRequest): Error | undefined {
  const url = request.raw.url ?? '/';
  const empty = emptySegment(url);
  if (empty) return invalid(empty);
  // No name, id, path or query value may hold a NUL: PostgreSQL cannot store one, and no file name has one.
  if (/%00/.test(url)) return invalid('the request target holds a NUL character (%00)');
  // A body is checked against Content-MD5 when it is parsed; a request without one here.
  const md5 = request.headers['content-md5'];
  if (typeof md5 === 'string' && md5 !== EMPTY_MD5 && !hasBody(request)) {
    return httpError('InvalidDigest', `Content-MD5 '${md5}' is not the digest of the empty body`);
  }
  return undefined;
}

// Nothing to wait for while registering: a callback plugin, done once the decorators and the hook are in place.
const authentication: FastifyPluginCallback<AuthenticationOptions> = (app, options, registered) => {
  const { publicUrl, tokens, ...verifyOptions } = options;

  app.decorateRequest(SIGNED_BY, null);
  app.decorateRequest('caller', {
    getter(this: FastifyRequest): Caller {
      const caller = this[SIGNED_BY];
      if (!caller) throw httpError('MissingAuthorization', 'the request is not signed');
      return caller;
    },
  });
  app.decorateRequest('scope', {
    getter(this: FastifyRequest): Scope {
      const params = this.params as { account?: unknown; project?: unknown };
      if (typeof params.account !== 'string' || typeof params.project !== 'string') {
        throw new Error(`route ${this.routeOptions.url ?? this.url} has no :account and :project, so no scope`);
      }
      return { caller: this.caller, account: params.account, project: params.project, baseUrl: publicUrl || `${this.protocol}://${this.host}` };
    },
  });

  const signedBy = (request: FastifyRequest, caller: Caller): Error | undefined => {
    request[SIGNED_BY] = caller;
    return checkSigned(request);
  };
  // Written with a callback so that a request whose key is cached is verified without a trip through the event loop.
  function hook<O>(verify: Verify<O>, verifyWith: O) {
    return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
      let caller: Caller | undefined;
      try {
        caller = verify.now(request, verifyWith);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (caller) {
        done(signedBy(request, caller));
        return;
      }
      verify.later(request, verifyWith).then(
        (c) => done(signedBy(request, c)),
        (error: Error) => done(error),
      );
    };
  }
  const authenticate = hook({ now: verifyRequestNow, later: verifyRequest }, verifyOptions);
  const authenticateGa4gh = hook({ now: verifyGa4ghNow, later: verifyGa4gh }, { ...verifyOptions, ...tokens });
  // Hooked per route, first of its onRequest hooks, so that no request pays for deciding whether it needs it.
  app.addHook('onRoute', (route) => {
    if (route.config?.auth === false) return;
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [route.config?.auth === 'ga4gh' ? authenticateGa4gh : authenticate, ...existing];
  });
  registered();
};

export const authenticationPlugin = fastifyPlugin(authentication, { name: 'gdflow-authentication', fastify: '5.x' });
