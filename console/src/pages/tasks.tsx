/**
 * Tasks: the list with filters (state, name, creation dates) and keyset paging; a task's page with its workflow
 * graph coloured by job state and updated by polling, each job's timings, command, attempts and log (followed while
 * the job runs) and what it waits for, the task's outputs, and stop and delete with a confirmation.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { Confirm, ErrorBox, Loading, Progress, StateBadge, useLoad, usePolling } from '../components/common.js';
import { DateField } from '../components/date-field.js';
import { CachedMark, CacheSource } from '../components/cache-source.js';
import { Graph } from '../components/graph.js';
import { hasRunTimeJobs, jobGraph, jobGraphKey } from '../job-graph.js';
import { WaitFact, WaitNote } from '../components/job-wait.js';
import { TaskOutputs } from '../components/task-outputs.js';
import { TaskWorkflow } from '../components/task-workflow.js';
import { formatDay, formatDuration, formatTime, parseDay, reasonText, t } from '../i18n.js';
import { href, navigate } from '../router.js';
import { api, projectPath } from '../session.js';
import { TASK_STATES, TERMINAL_TASK, type GraphView, type Job, type JobInfo, type Task, type TaskList as TaskListAnswer } from '../types.js';
import { markPainted } from './workflows.js';

const PAGE_SIZE = 50;
const POLL_MS = 1500;

/** Unix seconds of the start of a local date (`2026-11-25`), or of its end. */
function dayBound(date: string, end: boolean): number | undefined {
  const day = parseDay(date);
  if (!day) return undefined;
  if (end) day.setHours(23, 59, 59);
  return Math.floor(day.getTime() / 1000);
}

export function TaskList({ query }: { query: URLSearchParams }) {
  const filters = { status: query.get('status') ?? '', name: query.get('name') ?? '', from: query.get('from') ?? '', to: query.get('to') ?? '' };
  const key = JSON.stringify(filters);
  // Cursors of the pages before this one (keyset paging: a page starts after the last task of the one before).
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  useEffect(() => setCursors([]), [key]);
  const list = useLoad(
    async (signal) => {
      const answer = await api().json<TaskListAnswer>('GET', projectPath('tasks/'), {
        query: {
          size: PAGE_SIZE,
          status: filters.status || undefined,
          name: filters.name || undefined,
          from: dayBound(filters.from, false),
          to: dayBound(filters.to, true),
          cursor,
        },
        signal,
      });
      performance.mark('gdflow:tasks-data');
      return answer;
    },
    [key, cursor],
  );
  const [form, setForm] = useState(filters);
  useEffect(() => setForm(filters), [key]);
  const live = (list.data?.task_list ?? []).some((task) => !TERMINAL_TASK.includes(task.status));
  usePolling(list.reload, 5000, live);
  useEffect(() => {
    if (list.data) markPainted('gdflow:tasks-painted');
  }, [list.data]);

  const [dateErrors, setDateErrors] = useState<{ from?: string; to?: string }>({});
  const apply = (event: Event) => {
    event.preventDefault();
    const wrong = (day: string) => (day.trim() !== '' && !parseDay(day) ? t('Enter a date as {example}.', { example: formatDay(new Date()) }) : undefined);
    const errors = { from: wrong(form.from), to: wrong(form.to) };
    setDateErrors(errors);
    if (errors.from || errors.to) return;
    navigate(href(['tasks'], { ...form, from: form.from.trim(), to: form.to.trim() }));
  };
  const first = cursors.length * PAGE_SIZE + 1;
  return (
    <section>
      <div class="page-head">
        <h1>{t('Tasks')}</h1>
        <a class="button" href="#/workflows">
          {t('Run a workflow')}
        </a>
      </div>
      <form class="filters" onSubmit={apply} role="search" aria-label={t('Filter tasks')}>
        <div class="field">
          <label for="f-status">{t('State')}</label>
          <select id="f-status" value={form.status} onChange={(e) => setForm({ ...form, status: e.currentTarget.value })}>
            <option value="">{t('any')}</option>
            {TASK_STATES.map((s) => (
              <option key={s} value={s}>
                {t(s)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-name">{t('Name contains')}</label>
          <input id="f-name" value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} spellcheck={false} />
        </div>
        <DateField id="f-from" label={t('Created from')} value={form.from} error={dateErrors.from} onChange={(from) => setForm({ ...form, from })} />
        <DateField id="f-to" label={t('Created until')} value={form.to} error={dateErrors.to} onChange={(to) => setForm({ ...form, to })} />
        <div class="buttons">
          <button type="submit" class="primary">
            {t('Apply')}
          </button>
          <a class="button" href="#/tasks">
            {t('Clear')}
          </a>
        </div>
      </form>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? (
        <Loading />
      ) : (
        list.data && (
          <>
            {list.data.count === 0 ? (
              <p class="muted">{t('No tasks match.')}</p>
            ) : (
              <div class="table-wrap">
                <table class="tasks" aria-describedby="task-range">
                  <thead>
                    <tr>
                      <th scope="col">{t('Name')}</th>
                      <th scope="col">{t('Workflow')}</th>
                      <th scope="col">{t('State')}</th>
                      <th scope="col">{t('Progress')}</th>
                      <th scope="col">{t('Created')}</th>
                      <th scope="col">{t('Duration')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.data.task_list.map((task) => (
                      <tr key={task.task_id} class="task-row">
                        <td>
                          <a href={href(['tasks', task.task_id])}>{task.task_name}</a>
                        </td>
                        <td>
                          {task.workflow_name} <span class="muted">v{task.workflow_version}</span>
                        </td>
                        <td>
                          <StateBadge state={task.status} />
                        </td>
                        <td class="nowrap">
                          <Progress
                            percent={task.progress?.percent ?? 0}
                            label={t('{done} of {total} jobs done', { done: task.progress?.done ?? 0, total: task.progress?.total ?? 0 })}
                          />{' '}
                          <span class="muted small">
                            {task.progress?.done ?? 0}/{task.progress?.total ?? 0}
                          </span>
                        </td>
                        <td class="nowrap">{formatTime(task.createTime)}</td>
                        <td class="nowrap">{task.startTime ? formatDuration((task.endTime ?? Date.now() / 1000) - task.startTime) : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <nav class="pager" aria-label={t('Pages')}>
              <span id="task-range" aria-live="polite">
                {list.data.count === 0
                  ? ''
                  : list.data.total === null
                    ? t('{first}–{last} of more than {total}', {
                        first,
                        last: first + list.data.count - 1,
                        total: list.data.total_more_than ?? list.data.count,
                      })
                    : t('{first}–{last} of {total}', { first, last: first + list.data.count - 1, total: list.data.total })}
              </span>
              <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
                {t('Newer')}
              </button>
              <button type="button" disabled={!list.data.next_cursor} onClick={() => list.data?.next_cursor && setCursors([...cursors, list.data.next_cursor])}>
                {t('Older')}
              </button>
            </nav>
          </>
        )
      )}
    </section>
  );
}

/** The task's workflow graph: in the task's project, else in the public account (a public workflow's task). */
async function taskGraph(task: Task, signal: AbortSignal): Promise<GraphView | undefined> {
  const query = { workflow_version: task.workflow_version };
  const name = encodeURIComponent(task.workflow_name);
  try {
    return await api().json<GraphView>('GET', projectPath(`workflows/${name}/graph/`), { query, signal });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
  }
  try {
    return await api().json<GraphView>('GET', `/accounts/public/projects/default/workflows/${name}/graph/`, { query, signal });
  } catch {
    return undefined; // the version is gone: the page shows the jobs without the graph
  }
}

export function TaskPage({ taskId, job }: { taskId: string; job?: string | undefined }) {
  const taskPath = projectPath(`tasks/${encodeURIComponent(taskId)}/`);
  const [state, setState] = useState<{ task: Task; jobs: Job[] } | undefined>();
  const [error, setError] = useState<unknown>();
  const [confirm, setConfirm] = useState<'stop' | 'delete' | undefined>();
  const [acting, setActing] = useState<unknown>();
  const [gone, setGone] = useState(false);
  const [rerunning, setRerunning] = useState(false);
  const refresh = async () => {
    try {
      const [task, { jobs }] = await Promise.all([api().json<Task>('GET', taskPath), api().json<{ jobs: Job[] }>('GET', `${taskPath}jobs/`)]);
      setState({ task, jobs });
      setError(undefined);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 404) setGone(true);
      setError(failure);
    }
  };
  useEffect(() => {
    void refresh();
  }, [taskId]);
  const running = state !== undefined && !TERMINAL_TASK.includes(state.task.status);
  usePolling(() => void refresh(), POLL_MS, running && !gone);

  // A task whose jobs are added as it runs (a CWL run) is drawn from its jobs; any other from its workflow's graph.
  const runTime = state !== undefined && hasRunTimeJobs(state.jobs);
  const graphKey = runTime ? jobGraphKey(state.jobs) : '';
  const jobsGraph = useMemo(() => (runTime ? jobGraph(state.task, state.jobs) : undefined), [graphKey]);
  const workflowGraph = useLoad(
    (signal) => (state && !runTime ? taskGraph(state.task, signal) : Promise.resolve(undefined)),
    [state?.task.workflow_name, state?.task.workflow_version, runTime],
  );
  const graph = jobsGraph ? { data: jobsGraph, loading: false } : workflowGraph;
  const states = useMemo(() => Object.fromEntries((state?.jobs ?? []).map((j) => [j.node_id, j.status])), [state?.jobs]);
  const selectedJob = state?.jobs.find((j) => j.node_id === job);
  // The job's panel is below the graph (and above the jobs): bring it into view when another job is chosen.
  const panel = useRef<HTMLElement>(null);
  const shown = useRef(job);
  useEffect(() => {
    if (job !== undefined && job !== shown.current) panel.current?.scrollIntoView({ block: 'nearest' });
    shown.current = job;
  }, [job]);
  const select = (nodeId: string) => navigate(href(['tasks', taskId], { job: nodeId }), true);

  const act = async (what: 'stop' | 'delete' | 'rerun') => {
    setConfirm(undefined);
    setActing(undefined);
    try {
      if (what === 'stop') {
        await api().send('PUT', taskPath);
        await refresh();
      } else if (what === 'rerun') {
        setRerunning(true);
        const again = await api().json<{ task_id: string }>('POST', `${taskPath}rerun/`);
        navigate(href(['tasks', again.task_id]));
      } else {
        await api().send('DELETE', taskPath);
        navigate('#/tasks');
      }
    } catch (failure) {
      setActing(failure);
    } finally {
      setRerunning(false);
    }
  };

  if (!state) return error ? <ErrorBox error={error} /> : <Loading />;
  const { task, jobs } = state;
  return (
    <section>
      <nav class="crumbs" aria-label={t('Breadcrumbs')}>
        <a href="#/tasks">{t('Tasks')}</a> / <span>{task.task_name}</span>
      </nav>
      <div class="page-head">
        <h1>
          {task.task_name} <StateBadge state={task.status} />
        </h1>
        <div class="buttons">
          {!TERMINAL_TASK.includes(task.status) && (
            <button type="button" class="danger" onClick={() => setConfirm('stop')} disabled={task.status === 'stopping'}>
              {t('Stop')}
            </button>
          )}
          {TERMINAL_TASK.includes(task.status) && (
            <button
              type="button"
              class="primary"
              onClick={() => void act('rerun')}
              disabled={rerunning || gone}
              title={t('A new task with the same inputs and parameters; jobs whose inputs did not change are taken from this one.')}>
              {rerunning ? t('Starting…') : t('Rerun')}
            </button>
          )}
          <button type="button" onClick={() => setConfirm('delete')}>
            {t('Delete')}
          </button>
        </div>
      </div>
      {gone && <p class="notice">{t('This task no longer exists.')}</p>}
      <ErrorBox error={acting} />
      {error && !gone ? <ErrorBox error={error} /> : null}
      <dl class="facts inline">
        <dt>{t('Workflow')}</dt>
        <dd>
          <TaskWorkflow task={task} />
        </dd>
        <dt>{t('Progress')}</dt>
        <dd>
          <Progress percent={task.progress.percent} label={t('{done} of {total} jobs done', { done: task.progress.done, total: task.progress.total })} />{' '}
          {t('{done} of {total} jobs done', { done: task.progress.done, total: task.progress.total })}
          {task.progress.running > 0 ? `, ${t('{n} running', { n: task.progress.running })}` : ''}
        </dd>
        <dt>{t('Created')}</dt>
        <dd>{formatTime(task.createTime)}</dd>
        <dt>{t('Started')}</dt>
        <dd>{formatTime(task.startTime)}</dd>
        <dt>{t('Ended')}</dt>
        <dd>{formatTime(task.endTime)}</dd>
        <dt>{t('Duration')}</dt>
        <dd>{task.startTime ? formatDuration((task.endTime ?? Date.now() / 1000) - task.startTime) : '—'}</dd>
        <dt>{t('Reason')}</dt>
        <dd class="task-reason">{reasonText(task.reason) || '—'}</dd>
      </dl>
      {running && (
        <p class="muted small" aria-live="off">
          {t('Updated live every {s} s.', { s: POLL_MS / 1000 })}
        </p>
      )}
      <div class="graph-layout stacked">
        {graph.data ? (
          <Graph view={graph.data} states={states} selected={job} onSelect={select} />
        ) : graph.loading ? (
          <Loading />
        ) : (
          <p class="muted">{t('The workflow graph is not available; the jobs are listed below.')}</p>
        )}
        <aside class="panel" aria-label={t('Selected job')} ref={panel}>
          {selectedJob ? (
            <JobPanel key={selectedJob.job_id} taskPath={taskPath} job={selectedJob} />
          ) : (
            <p class="muted">{t('Select a node or a job to see its command and log.')}</p>
          )}
        </aside>
      </div>
      <h2>{t('Jobs')}</h2>
      <div class="table-wrap">
        <table class="jobs">
          <thead>
            <tr>
              <th scope="col">{t('Node')}</th>
              <th scope="col">{t('Tool')}</th>
              <th scope="col">{t('State')}</th>
              <th scope="col">{t('Attempt')}</th>
              <th scope="col">{t('Started')}</th>
              <th scope="col">{t('Duration')}</th>
              <th scope="col">{t('Exit code')}</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.job_id} class={j.node_id === job ? 'selected' : undefined}>
                <td>
                  <a href={href(['tasks', taskId], { job: j.node_id })} aria-current={j.node_id === job ? 'true' : undefined}>
                    {j.alias || j.node_id}
                  </a>
                </td>
                <td>{j.name}</td>
                <td class="nowrap">
                  <StateBadge state={j.status} /> {j.cached_from && <CachedMark />}
                  <WaitNote job={j} />
                </td>
                <td>{j.attempt}</td>
                <td class="nowrap">{formatTime(j.startTime)}</td>
                <td class="nowrap">{j.startTime ? formatDuration((j.endTime ?? Date.now() / 1000) - j.startTime) : '—'}</td>
                <td>{j.exit_code ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <TaskOutputs taskPath={taskPath} taskId={taskId} status={task.status} />
      <Confirm
        open={confirm === 'stop'}
        title={t('Stop this task?')}
        message={t('Its running jobs are killed and nothing further starts. This cannot be undone.')}
        confirmLabel={t('Stop task')}
        danger
        onConfirm={() => void act('stop')}
        onCancel={() => setConfirm(undefined)}
      />
      <Confirm
        open={confirm === 'delete'}
        title={t('Delete this task?')}
        message={t('The task, its jobs, logs and working files are removed (stored outputs stay in the data store). This cannot be undone.')}
        confirmLabel={t('Delete task')}
        danger
        onConfirm={() => void act('delete')}
        onCancel={() => setConfirm(undefined)}
      />
    </section>
  );
}

/** The log link of a job info answer, made relative: the console reads it from its own origin (CSP connect-src 'self'). */
const sameOrigin = (url: string): string => {
  const u = new URL(url, location.href);
  return u.pathname + u.search;
};

function JobPanel({ taskPath, job }: { taskPath: string; job: Job }) {
  const [info, setInfo] = useState<JobInfo | undefined>();
  const [log, setLog] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [follow, setFollow] = useState(true);
  const pre = useRef<HTMLPreElement>(null);
  const active = job.status === 'running' || job.status === 'queued' || job.status === 'waiting';
  const load = async () => {
    try {
      const next = await api().json<JobInfo>('GET', `${taskPath}jobs/${encodeURIComponent(job.job_id)}/`);
      setInfo(next);
      if (next.Log_downloadURL) {
        const response = await fetch(sameOrigin(next.Log_downloadURL), { cache: 'no-store', credentials: 'omit' });
        const text = response.ok ? await response.text() : '';
        setLog(text.length > 1_000_000 ? `…\n${text.slice(-1_000_000)}` : text);
      } else setLog('');
      setError(undefined);
    } catch (failure) {
      setError(failure);
    }
  };
  useEffect(() => {
    void load();
  }, [job.job_id, job.status, job.attempt]);
  usePolling(() => void load(), 2000, active && follow);
  useEffect(() => {
    const el = pre.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [log, follow]);
  const view = info ?? job;
  return (
    <div class="job-panel">
      <h2>
        {job.alias || job.node_id} <StateBadge state={job.status} /> {view.cached_from && <CachedMark />}
      </h2>
      <ErrorBox error={error} />
      <dl class="facts inline">
        <dt>{t('Job')}</dt>
        <dd>
          <code class="wrap">{job.job_id}</code>
        </dd>
        <dt>{t('Tool')}</dt>
        <dd>{job.name}</dd>
        <dt>{t('Attempt')}</dt>
        <dd>{view.attempt}</dd>
        <dt>{t('Started')}</dt>
        <dd>{formatTime(view.startTime)}</dd>
        <dt>{t('Ended')}</dt>
        <dd>{formatTime(view.endTime)}</dd>
        <dt>{t('Duration')}</dt>
        <dd>{view.startTime ? formatDuration((view.endTime ?? Date.now() / 1000) - view.startTime) : '—'}</dd>
        <dt>{t('Resources')}</dt>
        <dd>
          {view.cpu} CPU, {view.mem}
        </dd>
        <dt>{t('Exit code')}</dt>
        <dd>{view.exit_code ?? '—'}</dd>
        <dt>{t('Reason')}</dt>
        <dd>{reasonText(view.reason) || '—'}</dd>
        <WaitFact job={view} />
        {view.image_digest && (
          <>
            <dt>{t('Image')}</dt>
            <dd>
              <code class="wrap">{view.image_digest}</code>
            </dd>
          </>
        )}
        {view.cached_from && (
          <>
            <dt>{t('From the cache')}</dt>
            <dd>
              <CacheSource jobId={view.cached_from} />
            </dd>
          </>
        )}
      </dl>
      {(view.attempts?.length ?? 0) > 1 && (
        <>
          <h3>{t('Attempts')}</h3>
          <table class="jobs">
            <thead>
              <tr>
                <th scope="col">{t('Attempt')}</th>
                <th scope="col">{t('Outcome')}</th>
                <th scope="col">{t('Exit code')}</th>
                <th scope="col">{t('Memory')}</th>
                <th scope="col">{t('Duration')}</th>
                <th scope="col">{t('Reason')}</th>
              </tr>
            </thead>
            <tbody>
              {view.attempts!.map((a) => (
                <tr key={a.attempt}>
                  <td>{a.attempt}</td>
                  <td>{t(a.outcome)}</td>
                  <td>{a.exit_code ?? '—'}</td>
                  <td>{a.mem}</td>
                  <td>{a.startTime && a.endTime ? formatDuration(a.endTime - a.startTime) : '—'}</td>
                  <td>{reasonText(a.reason)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h3>{t('Command')}</h3>
      <pre class="code cmd">{info ? info.cmd || t('(none: a load or store step)') : t('Loading…')}</pre>
      <div class="log-head">
        <h3 id="log-title">{t('Log')}</h3>
        {active && (
          <label class="check">
            <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} /> {t('Follow')}
          </label>
        )}
        {info?.Log_downloadURL && (
          <a href={sameOrigin(info.Log_downloadURL)} target="_blank" rel="noopener noreferrer">
            {t('Open the raw log')}
          </a>
        )}
      </div>
      <pre class="code log" ref={pre} tabIndex={0} aria-labelledby="log-title" aria-live={active ? 'polite' : 'off'}>
        {log === undefined ? t('Loading…') : log === '' ? (active ? t('(no output yet)') : t('(no output)')) : log}
      </pre>
    </div>
  );
}
