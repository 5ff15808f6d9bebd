/** Every server option, declared once: its environment variable, flag, kind, default and description (README's table, `gdflow serve --help`). */

import { availableParallelism, totalmem } from 'node:os';

export type Kind = 'string' | 'port' | 'integer' | 'size' | 'seconds' | 'enum';

export interface OptionSpec {
  env: string;
  flag: string;
  kind: Kind;
  default: () => string | number;
  description: string;
  values?: readonly string[];
}

export const OPTIONS = {
  host: { env: 'GDFLOW_HOST', flag: '--host', kind: 'string', default: () => '127.0.0.1', description: 'address to listen on' },
  port: { env: 'GDFLOW_PORT', flag: '--port', kind: 'port', default: () => 8080, description: 'TCP port to listen on (0 picks a free one)' },
  dataDir: {
    env: 'GDFLOW_DATA_DIR',
    flag: '--data-dir',
    kind: 'string',
    default: () => './gdflow-data',
    description: 'data root: database, data store, job directories and logs',
  },
  database: {
    env: 'GDFLOW_DATABASE',
    flag: '--database',
    kind: 'string',
    default: () => '',
    description: 'database: empty for <data-dir>/gdflow.db (SQLite), a sqlite:<file> path, or postgres://user@host:port/db',
  },
  role: {
    env: 'GDFLOW_ROLE',
    flag: '--role',
    kind: 'enum',
    values: ['all', 'api', 'worker'],
    default: () => 'all',
    description: 'what this process does: all (API and jobs), api (serves the API, runs no jobs), worker (runs jobs, serves only /healthz)',
  },
  trustProxy: {
    env: 'GDFLOW_TRUST_PROXY',
    flag: '--trust-proxy',
    kind: 'string',
    default: () => '',
    description:
      'addresses of reverse proxies whose X-Forwarded-For/-Proto/-Host headers are believed (comma-separated IPs or CIDR ranges, or loopback, linklocal, uniquelocal; default: none, the headers are ignored)',
  },
  publicUrl: {
    env: 'GDFLOW_PUBLIC_URL',
    flag: '--public-url',
    kind: 'string',
    default: () => '',
    description: 'base URL clients use to reach the server, for links such as Log_downloadURL (default: from the Host header)',
  },
  bodyLimit: {
    env: 'GDFLOW_BODY_LIMIT',
    flag: '--body-limit',
    kind: 'size',
    default: () => 1024 * 1024,
    description: 'largest JSON request body, in bytes or with a unit (1m)',
  },
  uploadLimit: { env: 'GDFLOW_UPLOAD_LIMIT', flag: '--upload-limit', kind: 'size', default: () => 64 * 1024 ** 3, description: 'largest data upload (64g)' },
  clockSkew: {
    env: 'GDFLOW_CLOCK_SKEW',
    flag: '--clock-skew',
    kind: 'seconds',
    default: () => 900,
    description: "how far a signed request's Date may be from the server clock, in seconds, either way",
  },
  logLevel: {
    env: 'GDFLOW_LOG_LEVEL',
    flag: '--log-level',
    kind: 'enum',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: () => 'info',
    description: 'log level (one line per request at info)',
  },
  executor: {
    env: 'GDFLOW_EXECUTOR',
    flag: '--executor',
    kind: 'enum',
    values: ['bwrap', 'host', 'podman', 'docker', 'slurm'],
    default: () => 'bwrap',
    description:
      "how jobs run: bwrap (bubblewrap sandbox), podman or docker (a container of the tool's image; tools without an image run in the bwrap sandbox), host (plain processes, no isolation), or slurm (each job one sbatch on a Slurm cluster, see --slurm-*)",
  },
  containerRuntime: {
    env: 'GDFLOW_CONTAINER_RUNTIME',
    flag: '--container-runtime',
    kind: 'string',
    default: () => '',
    description: "the docker-compatible CLI the podman and docker executors run: a path or a name in PATH (default: the executor's name)",
  },
  pullPolicy: {
    env: 'GDFLOW_PULL_POLICY',
    flag: '--pull-policy',
    kind: 'enum',
    values: ['never', 'missing', 'always'],
    default: () => 'missing',
    description:
      "when the podman and docker executors pull a tool's image: never (only images already here), missing (when not here), always (before every job)",
  },
  slurmPartition: {
    env: 'GDFLOW_SLURM_PARTITION',
    flag: '--slurm-partition',
    kind: 'string',
    default: () => '',
    description: "Slurm partition of the jobs (default: the cluster's default partition)",
  },
  slurmAccount: {
    env: 'GDFLOW_SLURM_ACCOUNT',
    flag: '--slurm-account',
    kind: 'string',
    default: () => '',
    description: 'Slurm account the jobs are charged to',
  },
  slurmQos: { env: 'GDFLOW_SLURM_QOS', flag: '--slurm-qos', kind: 'string', default: () => '', description: 'Slurm quality of service of the jobs' },
  slurmArgs: {
    env: 'GDFLOW_SLURM_ARGS',
    flag: '--slurm-args',
    kind: 'string',
    default: () => '',
    description: 'more sbatch arguments for every job, separated by blanks (e.g. "--constraint=ssd --nice=10")',
  },
  slurmWrap: {
    env: 'GDFLOW_SLURM_WRAP',
    flag: '--slurm-wrap',
    kind: 'enum',
    values: ['bwrap', 'host', 'podman'],
    default: () => 'bwrap',
    description:
      "how a Slurm job runs on its node: bwrap (the bubblewrap sandbox; the nodes need bwrap), host (a plain process) or podman (in its tool's image; the nodes need podman; --container-runtime and --pull-policy apply there)",
  },
  slurmPollMs: {
    env: 'GDFLOW_SLURM_POLL_MS',
    flag: '--slurm-poll-ms',
    kind: 'integer',
    default: () => 250,
    description: "milliseconds between two looks at the Slurm jobs' status files in the data root (no call to the controller)",
  },
  slurmQueueMs: {
    env: 'GDFLOW_SLURM_QUEUE_MS',
    flag: '--slurm-queue-ms',
    kind: 'integer',
    default: () => 5000,
    description: "milliseconds between two squeue calls (one call for all of the worker's Slurm jobs; sooner after a scancel)",
  },
  slurmSubmitRate: {
    env: 'GDFLOW_SLURM_SUBMIT_RATE',
    flag: '--slurm-submit-rate',
    kind: 'integer',
    default: () => 20,
    description: 'sbatch calls per second at most',
  },
  slurmMaxQueued: {
    env: 'GDFLOW_SLURM_MAX_QUEUED',
    flag: '--slurm-max-queued',
    kind: 'integer',
    default: () => 1000,
    description: "Slurm jobs of this worker submitted and not ended, at most; more wait in gdflow's queue",
  },
  launcher: {
    env: 'GDFLOW_LAUNCHER',
    flag: '--launcher',
    kind: 'enum',
    values: ['auto', 'native', 'node'],
    default: () => 'auto',
    description: 'what starts job processes: native (gdflow-spawn, built by npm run build), node (a Node helper), auto (native when built)',
  },
  cpus: {
    env: 'GDFLOW_CPUS',
    flag: '--cpus',
    kind: 'integer',
    default: () => availableParallelism(),
    description: 'CPU slots the local executor hands out to jobs',
  },
  memory: {
    env: 'GDFLOW_MEMORY',
    flag: '--memory',
    kind: 'size',
    default: () => Math.floor(totalmem() * 0.8),
    description: 'memory the local executor hands out to jobs',
  },
  leaseTtl: {
    env: 'GDFLOW_LEASE_TTL',
    flag: '--lease-ttl',
    kind: 'seconds',
    default: () => 15,
    description: "how long a worker's hold on a task lasts without renewal: a dead worker's tasks are taken over after this (seconds)",
  },
  drainTimeout: {
    env: 'GDFLOW_DRAIN_TIMEOUT',
    flag: '--drain-timeout',
    kind: 'seconds',
    default: () => 25,
    description: 'on SIGTERM, how long a worker lets running jobs finish before it kills them and hands their tasks back (seconds)',
  },
  workerId: {
    env: 'GDFLOW_WORKER_ID',
    flag: '--worker-id',
    kind: 'string',
    default: () => '',
    description: "this worker's name in the store (default: <hostname>-<pid>-<random>); must be unique among live workers",
  },
  jobTimeout: {
    env: 'GDFLOW_JOB_TIMEOUT',
    flag: '--job-timeout',
    kind: 'seconds',
    default: () => 86400,
    description: 'a job running longer is killed and fails (seconds; 0 for none)',
  },
  expressionTimeout: {
    env: 'GDFLOW_EXPRESSION_TIMEOUT',
    flag: '--expression-timeout',
    kind: 'seconds',
    default: () => 60,
    description:
      "how long one JavaScript expression of a CWL run may take before it fails its step (seconds, 1 to 3600; the reference runner's --eval-timeout is 60 too)",
  },
  callCaching: {
    env: 'GDFLOW_CALL_CACHING',
    flag: '--call-caching',
    kind: 'enum',
    values: ['on', 'off'],
    default: () => 'on',
    description:
      'whether a job may reuse the outputs of an identical earlier job of the same account (docs/tasks.md, "Call caching"); tools and tasks can turn it off for themselves',
  },
  cleanupIntermediates: {
    env: 'GDFLOW_CLEANUP_INTERMEDIATES',
    flag: '--cleanup-intermediates',
    kind: 'enum',
    values: ['off', 'on'],
    default: () => 'off',
    description: 'whether a task that succeeded loses its intermediate outputs (its stored outputs stay) when it does not say (Property.cleanup_intermediates)',
  },
  retryMaxAttempts: {
    env: 'GDFLOW_RETRY_MAX_ATTEMPTS',
    flag: '--retry-max-attempts',
    kind: 'integer',
    default: () => 3,
    description: 'attempts of a job in all, for tools without a retry policy (docs/tasks.md, "Retries"; at most 10)',
  },
  retryOn: {
    env: 'GDFLOW_RETRY_ON',
    flag: '--retry-on',
    kind: 'string',
    default: () => 'lost_worker',
    description:
      'which failures are retried, for tools without a retry policy: a comma-separated list of exit_code, out_of_memory, timeout, lost_worker, executor_error (or none)',
  },
  retryMemoryFactor: {
    env: 'GDFLOW_RETRY_MEMORY_FACTOR',
    flag: '--retry-memory-factor',
    kind: 'string',
    default: () => '2',
    description: "after an out-of-memory failure, the next attempt's memory is multiplied by this (1 to 16; up to the worker's --memory)",
  },
  retryBackoff: {
    env: 'GDFLOW_RETRY_BACKOFF',
    flag: '--retry-backoff',
    kind: 'seconds',
    default: () => 0,
    description: "seconds before a job's second attempt, doubled for each further one",
  },
  metricsToken: {
    env: 'GDFLOW_METRICS_TOKEN',
    flag: '--metrics-token',
    kind: 'string',
    default: () => '',
    description: 'bearer token GET /metrics requires (default: none, and /metrics answers only loopback requests)',
  },
  tesFileRoots: {
    env: 'GDFLOW_TES_FILE_ROOTS',
    flag: '--tes-file-roots',
    kind: 'string',
    default: () => '',
    description: "host directories (comma-separated) a TES task's file:// inputs may read from (docs/ga4gh.md); default: none",
  },
  tesOutputRoots: {
    env: 'GDFLOW_TES_OUTPUT_ROOTS',
    flag: '--tes-output-roots',
    kind: 'string',
    default: () => '',
    description: "host directories (comma-separated) a TES task's file:// outputs may be written to (docs/ga4gh.md); default: none",
  },
  fetchHosts: {
    env: 'GDFLOW_FETCH_HOSTS',
    flag: '--fetch-hosts',
    kind: 'string',
    default: () => '',
    description:
      'hosts (comma-separated: host, host:port, *.domain, or * for any) the server may fetch TES http(s) inputs and WES workflow_url from; default: none',
  },
  logUrlTtl: {
    env: 'GDFLOW_LOG_URL_TTL',
    flag: '--log-url-ttl',
    kind: 'seconds',
    default: () => 3600,
    description: 'how long a Log_downloadURL stays valid (seconds)',
  },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;
