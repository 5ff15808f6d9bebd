/**
 * A task's Outputs section (docs/console.md): what the task stored, or is to store, in the data store
 * (GET tasks/<id>/outputs/), each item with its size and state, the node that wrote it (a link to its job) and a
 * download button; a failed or stopped task's stored items are marked partial. Polled while the task runs.
 */
import { useState } from 'preact/hooks';
import { formatSize, t } from '../i18n.js';
import { href } from '../router.js';
import { api } from '../session.js';
import { TERMINAL_TASK, type OutputState, type TaskOutputs as Answer, type TaskStatus } from '../types.js';
import { ErrorBox, Loading, useLoad, usePolling } from './common.js';
import { downloadData } from './data-download.js';
import { pathOf } from './data-picker.js';
import { PartialBadge } from './produced-by.js';

/** An output's state, said in the console's language. */
function stateText(state: OutputState): string {
  switch (state) {
    case 'stored':
      return t('stored');
    case 'pending':
      return t('not stored yet');
    case 'not_stored':
      return t('not stored');
    case 'replaced':
      return t('replaced since');
    case 'missing':
      return t('deleted since');
  }
}

export function TaskOutputs({ taskPath, taskId, status }: { taskPath: string; taskId: string; status: TaskStatus }) {
  const running = !TERMINAL_TASK.includes(status);
  // Loaded again when the task's state changes (its end), and every few seconds while it runs.
  const answer = useLoad((signal) => api().json<Answer>('GET', `${taskPath}outputs/`, { signal }), [taskPath, status]);
  usePolling(answer.reload, 3000, running);
  const [failure, setFailure] = useState<unknown>();
  const download = async (path: string) => {
    setFailure(undefined);
    try {
      await downloadData(path);
    } catch (error) {
      setFailure(error);
    }
  };
  const data = answer.data;
  return (
    <section class="task-outputs" aria-labelledby="outputs-title">
      <h2 id="outputs-title">{t('Outputs')}</h2>
      <ErrorBox error={answer.error ?? failure} />
      {!data ? (
        answer.loading && <Loading />
      ) : data.count === 0 ? (
        <p class="muted">{t('This task stores nothing in the data store.')}</p>
      ) : (
        <>
          {data.partial && <p class="notice">{t('The task {status}: what it stored is only part of its outputs.', { status: t(data.status) })}</p>}
          <div class="table-wrap">
            <table class="outputs">
              <thead>
                <tr>
                  <th scope="col">{t('Name')}</th>
                  <th scope="col">{t('Size')}</th>
                  <th scope="col">{t('State')}</th>
                  <th scope="col">{t('Written by')}</th>
                  <th scope="col">
                    <span class="sr-only">{t('Actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.outputs.map((output) => {
                  const path = pathOf(output.name);
                  const folder = path.slice(0, path.lastIndexOf('/') + 1);
                  return (
                    <tr key={output.name} class={`output out-${output.state}`}>
                      <td>
                        <a href={href(['data'], { prefix: folder })} title={t('Its folder in the data store')}>
                          {path}
                        </a>
                        {output.description && <div class="muted small">{output.description}</div>}
                      </td>
                      <td class="nowrap">{output.size === null ? '—' : formatSize(output.size)}</td>
                      <td class="nowrap">
                        <span class={`out-state st-${output.state}`}>{stateText(output.state)}</span>
                        {output.partial && (
                          <>
                            {' '}
                            <PartialBadge status={data.status} />
                          </>
                        )}
                      </td>
                      <td>
                        {output.node_id ? (
                          <a href={href(['tasks', taskId], { job: output.node_id })}>
                            {output.node_id}
                            {output.output ? `.${output.output}` : ''}
                          </a>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td class="nowrap">
                        {output.state === 'stored' && (
                          <button type="button" class="small" onClick={() => void download(path)} aria-label={t('Download {name}', { name: path })}>
                            {t('Download')}
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
