/** How the worker's parts tell the server's log (JSON lines) what happened. */
export type Log = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
