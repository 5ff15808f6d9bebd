/** WDL workflows (docs/wdl.md): the list under Workflows, and a version's document, input template and tasks. */
import { ErrorBox, Loading, StateBadge, useLoad } from '../components/common.js';
import { formatTime, t } from '../i18n.js';
import { href } from '../router.js';
import { api, projectPath } from '../session.js';
import type { TaskList } from '../types.js';

/** A WDL workflow version as `wdl/workflow/` answers it. */
interface WdlVersion {
  id: string;
  name: string;
  version: number;
  description: string;
  status: string;
  update_at: number;
  source?: string;
  source_name?: string;
  dependencies?: string;
  dependencies_name?: string | null;
  inputs?: Record<string, unknown>;
}

/** The project's WDL workflows, one row per workflow with its versions (shown on the Workflows page). */
export function WdlWorkflowTable() {
  const list = useLoad((signal) => api().json<WdlVersion[][]>('GET', projectPath('wdl/workflow/'), { signal }), []);
  if (list.error) return <ErrorBox error={list.error} />;
  if (!list.data) return <Loading />;
  if (list.data.length === 0) return <p class="muted">{t('No WDL workflows in this project yet (gwc workflow create -c FILE.wdl registers one).')}</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t('Name')}</th>
            <th scope="col">{t('Versions')}</th>
            <th scope="col">{t('Description')}</th>
            <th scope="col">{t('Modified')}</th>
          </tr>
        </thead>
        <tbody>
          {list.data.map((versions) => {
            const latest = versions[versions.length - 1]!;
            return (
              <tr key={latest.id}>
                <td>
                  <a href={href(['wdl', latest.id, latest.version])}>{latest.name}</a>
                </td>
                <td class="versions">
                  {versions.map((v) => (
                    <a
                      key={v.version}
                      class="version"
                      href={href(['wdl', v.id, v.version])}
                      aria-label={t('{name} version {v}', { name: v.name, v: v.version })}>
                      v{v.version}
                    </a>
                  ))}
                </td>
                <td class="desc">{latest.description}</td>
                <td class="nowrap">{formatTime(latest.update_at)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** One version: its document (read through its signed link), its input template, and the tasks that ran it. */
export function WdlWorkflowPage({ id, version }: { id: string; version: number | undefined }) {
  const versions = useLoad((signal) => api().json<WdlVersion[]>('GET', projectPath(`wdl/workflow/${encodeURIComponent(id)}/`), { signal }), [id]);
  const chosen = versions.data && (versions.data.find((v) => v.version === version) ?? versions.data[versions.data.length - 1]);
  const source = useLoad(async (signal) => (chosen?.source ? (await fetch(chosen.source, { signal })).text() : ''), [chosen?.source]);
  const tasks = useLoad((signal) => api().json<TaskList>('GET', projectPath('wdl/tasks/?size=200'), { signal }), [id]);
  if (versions.error) return <ErrorBox error={versions.error} />;
  if (!versions.data) return <Loading />;
  if (!chosen) return <p class="muted">{t('This WDL workflow does not exist.')}</p>;
  const ran = (tasks.data?.task_list ?? []).filter((task) => task.workflow_id === id && task.workflow_version === chosen.version);
  return (
    <section>
      <h1>
        {chosen.name} <span class="muted">v{chosen.version}</span> <StateBadge state={chosen.status} />
      </h1>
      <p class="desc">{chosen.description}</p>
      <p class="versions">
        {versions.data.map((v) => (
          <a key={v.version} class="version" href={href(['wdl', id, v.version])} aria-current={v.version === chosen.version ? 'page' : undefined}>
            v{v.version}
          </a>
        ))}
      </p>
      <h2>{chosen.source_name ?? t('Document')}</h2>
      <ErrorBox error={source.error} />
      <pre class="code">{source.data ?? t('Loading…')}</pre>
      {chosen.dependencies ? (
        <p>
          <a href={chosen.dependencies}>{t('Download the imports ({name})', { name: chosen.dependencies_name ?? 'dependencies.zip' })}</a>
        </p>
      ) : null}
      <h2>{t('Inputs')}</h2>
      <pre class="code">{JSON.stringify(chosen.inputs ?? {}, null, 2)}</pre>
      <h2>{t('Tasks')}</h2>
      <ErrorBox error={tasks.error} />
      {ran.length === 0 ? (
        <p class="muted">{t('No task has run this version yet.')}</p>
      ) : (
        <ul class="wdl-tasks">
          {ran.map((task) => (
            <li key={task.task_id}>
              <a href={href(['tasks', task.task_id])}>{task.task_name}</a> <StateBadge state={task.status} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
