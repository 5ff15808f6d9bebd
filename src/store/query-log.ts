import type { KyselyConfig, LogEvent } from 'kysely';

/** Who wants to know how long each statement took (the metrics: docs/operating.md, "Metrics"). */
export interface QueryObserver {
  onQuery?: (sql: string, ms: number) => void;
}

/** Kysely's log hook for an observer: every statement, failed ones included, with its time. */
export function queryLog(observer: QueryObserver): Pick<KyselyConfig, 'log'> {
  const { onQuery } = observer;
  if (!onQuery) return {};
  return { log: (event: LogEvent) => onQuery(event.query.sql, event.queryDurationMillis) };
}
