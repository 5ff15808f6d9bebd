import { pino, type Logger } from 'pino';

/**
 * The server's logger: JSON lines on stdout. Fastify's own per-request logger is turned off (it
 * builds a child logger for every request, which cost a third of a small request's time); the
 * access log line and errors carry the request id themselves.
 */
export type { Logger };

export function createLogger(level: string = 'info'): Logger {
  return pino({ level, base: { pid: process.pid } });
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
