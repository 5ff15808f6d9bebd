import { createServer, type Server } from 'node:net';
import { writeRawError } from './error-handler.js';
import { COMMON_ERRORS } from './errors.js';

/** The address the server cannot listen on, said in the operator's words (naming the option to change). */
export class ListenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ListenError';
  }
}

/** A bound socket that the server takes over once it is ready (Reservation.handle), or gives back. */
export interface Reservation {
  /** The port bound (the one picked when 0 was asked for). */
  port: number;
  /** What `listen({ handle })` takes over: the bound socket itself, so there is no moment it is free. */
  handle: object;
  /** Unbind (start-up failed before the server took the socket over). */
  release(): Promise<void>;
}

const WHERE = '--port (GDFLOW_PORT, port in the config file)';

/**
 * Connections the kernel holds for the server to accept. A burst of clients connecting at once (a thousand
 * ActivateWorkflows from a pipeline runner) waits in this queue while the event loop is busy; Node's default of 511
 * overflows, and the kernel then resets the connections it dropped. The kernel caps it at net.core.somaxconn (4096
 * on current Linux).
 */
export const ACCEPT_BACKLOG = 4096;

/**
 * Gives the taken-over socket its ACCEPT_BACKLOG again. Node's `listen({ handle, backlog })` ignores `backlog` (net.js
 * reads a backlog only from the positional `listen(handle, backlog)`) and listens again with 511, and Fastify's
 * listen passes one options object. Seen as ECONNRESETs in a burst of 1,000 ActivateWorkflows on a loaded machine
 * (`ss -ltn` showed 511). Listening again on a listening socket only sets the length of its queue (listen(2)).
 * Should the handle refuse (an error code back), the server goes on with Node's 511.
 */
export function restoreAcceptBacklog(reservation: Reservation): void {
  const handle = reservation.handle as { listen?: (backlog: number) => number };
  handle.listen?.(ACCEPT_BACKLOG);
}

function explain(error: NodeJS.ErrnoException, host: string, port: number): ListenError {
  const at = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new ListenError(
        `cannot listen on ${at}: port ${port} is already in use there (another gdflow, or another program); stop it, or choose another port with ${WHERE}`,
        { cause: error },
      );
    case 'EACCES':
      return new ListenError(
        `cannot listen on ${at}: port ${port} needs privileges (ports below 1024 do); choose a port from 1024 with ${WHERE} and put a reverse proxy in front (docs/operating.md)`,
        { cause: error },
      );
    case 'EADDRNOTAVAIL':
      return new ListenError(
        `cannot listen on ${at}: ${host} is not an address of this machine; choose one with --host (GDFLOW_HOST, host in the config file)`,
        { cause: error },
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ListenError(
        `cannot listen on ${at}: the host name '${host}' does not resolve; choose an address with --host (GDFLOW_HOST, host in the config file)`,
        { cause: error },
      );
    default:
      return new ListenError(`cannot listen on ${at}: ${error.message}`, { cause: error });
  }
}

/**
 * Bind host:port before anything else happens, so that a port already taken is said first and nothing (the data
 * root, the database file) is created. Until the server takes the socket over, a connection is answered 503: a load
 * balancer's probe sees a server that is starting (migrations may take a while), not one that hangs.
 */
export function reservePort(host: string, port: number): Promise<Reservation> {
  const server: Server = createServer((socket) => {
    socket.on('error', () => socket.destroy());
    writeRawError(socket, COMMON_ERRORS.ServiceUnavailable, 'the server is starting');
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(explain(error, host, port)));
    server.listen({ host, port, backlog: ACCEPT_BACKLOG }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      resolve({
        port: bound,
        // Node's listen() takes "anything with an underlying _handle member" (net.Server.listen(handle)): handing
        // the bound socket over, rather than closing it and binding again, leaves no moment another process could
        // take the port.
        handle: (server as unknown as { _handle: object })._handle,
        release: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
