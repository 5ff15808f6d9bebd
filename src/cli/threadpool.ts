/**
 * Job set-up and tear-down (working directories, logs, cgroup files) goes through libuv's thread
 * pool, where a slow cgroup operation blocks a thread for milliseconds; with the default 4 threads
 * two parallel jobs already queue behind each other. Imported first by the CLI so that the size is
 * set before the pool starts; an operator's own UV_THREADPOOL_SIZE wins.
 */
process.env.UV_THREADPOOL_SIZE ??= '16';
