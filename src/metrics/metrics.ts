import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The Prometheus metrics of one gdflow process (docs/operating.md, "Metrics"), each in its own registry so that
 * several servers in one process (the tests) keep theirs apart. Only plain recording methods are exposed: the
 * store, the engine and the HTTP layer report through callbacks, and none of them depends on prom-client.
 * Gauges that describe state (tasks and jobs by state, each worker's queue and capacity) are read when scraped.
 */

/** Job durations run from seconds to days. */
const JOB_BUCKETS = [1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 72 * 3600];
/** A request takes milliseconds; an upload or a DELETE that waits for a worker takes seconds. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2];

export interface StateCounts {
  tasks: Record<string, number>;
  jobs: Record<string, number>;
}

export interface WorkerState {
  worker: string;
  free_cpus: number;
  free_memory_mb: number;
  jobs: number;
  tasks: number;
  queued_jobs: number;
}

export interface MetricsSources {
  /** Tasks by state, and jobs of unfinished tasks by state (one query, cached briefly by the caller). */
  stateCounts?: () => Promise<StateCounts>;
  /** This process's worker, when it runs one. */
  worker?: () => WorkerState;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly jobDuration: Histogram<'outcome'>;
  private readonly executorFailures: Counter<'executor' | 'kind'>;
  private readonly queryDuration: Histogram<'statement'>;

  constructor(sources: MetricsSources = {}, options: { executor?: string; processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'gdflow_' });
    this.httpRequests = new Counter({
      name: 'gdflow_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'gdflow_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.jobDuration = new Histogram({
      name: 'gdflow_job_duration_seconds',
      help: 'Run time of the jobs this process ran, by outcome (succeeded, failed, killed, timed_out, lost)',
      labelNames: ['outcome'],
      buckets: JOB_BUCKETS,
      registers,
    });
    this.executorFailures = new Counter({
      name: 'gdflow_executor_failures_total',
      help: 'Jobs the executor could not run or follow: failed before the command gave an exit code (kind failed_to_run), or lost (kind lost)',
      labelNames: ['executor', 'kind'],
      registers,
    });
    this.queryDuration = new Histogram({
      name: 'gdflow_store_query_duration_seconds',
      help: "Time of the store's SQL statements, by statement kind (select, insert, update, delete, other)",
      labelNames: ['statement'],
      buckets: QUERY_BUCKETS,
      registers,
    });
    this.executor = options.executor ?? 'none';

    const { stateCounts, worker } = sources;
    if (stateCounts) {
      // Both gauges come from one query per scrape.
      let counts: Promise<StateCounts> | undefined;
      const read = () => (counts ??= stateCounts().finally(() => setImmediate(() => (counts = undefined))));
      new Gauge({
        name: 'gdflow_tasks',
        help: 'Tasks by state (the whole store)',
        labelNames: ['state'],
        registers,
        async collect() {
          this.reset();
          for (const [state, n] of Object.entries((await read()).tasks)) this.set({ state }, n);
        },
      });
      new Gauge({
        name: 'gdflow_jobs',
        help: 'Jobs of unfinished tasks by state (the whole store)',
        labelNames: ['state'],
        registers,
        async collect() {
          this.reset();
          for (const [state, n] of Object.entries((await read()).jobs)) this.set({ state }, n);
        },
      });
    }
    if (worker) {
      const gauge = (name: string, help: string, value: (w: WorkerState) => number) =>
        new Gauge({
          name,
          help,
          labelNames: ['worker'],
          registers,
          collect() {
            const w = worker();
            this.reset();
            this.set({ worker: w.worker }, value(w));
          },
        });
      gauge('gdflow_worker_queued_jobs', "Jobs of the worker's tasks waiting for a free slot", (w) => w.queued_jobs);
      gauge('gdflow_worker_running_jobs', 'Jobs the worker runs', (w) => w.jobs);
      gauge('gdflow_worker_held_tasks', 'Tasks the worker holds', (w) => w.tasks);
      gauge('gdflow_worker_free_cpus', 'CPU slots of the worker not given to jobs', (w) => w.free_cpus);
      gauge('gdflow_worker_free_memory_bytes', 'Memory of the worker not given to jobs', (w) => w.free_memory_mb * 1024 * 1024);
    }
  }

  private readonly executor: string;

  /** An HTTP answer; `route` is the route's pattern (never the raw URL, whose ids would make a series each). */
  httpRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  /** A job this process ran has ended. */
  jobEnded(outcome: string, exitCode: number | null, seconds: number): void {
    this.jobDuration.observe({ outcome }, Math.max(0, seconds));
    if (outcome === 'lost') this.executorFailures.inc({ executor: this.executor, kind: 'lost' });
    else if (outcome === 'failed' && exitCode === null) this.executorFailures.inc({ executor: this.executor, kind: 'failed_to_run' });
  }

  /** A store statement took `ms` milliseconds. */
  storeQuery(sqlText: string, ms: number): void {
    this.queryDuration.observe({ statement: statementKind(sqlText) }, ms / 1000);
  }

  /** The text exposition format. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** The statement's first keyword: a handful of label values, whatever the SQL. */
function statementKind(sqlText: string): string {
  const word = /^\s*(\w+)/.exec(sqlText)?.[1]?.toLowerCase();
  return word === 'select' || word === 'insert' || word === 'update' || word === 'delete' || word === 'with' ? (word === 'with' ? 'select' : word) : 'other';
}
