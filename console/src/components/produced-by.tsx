/** Which task and node produced a data item (docs/data.md, "Provenance"): a link to that job on its task's page. */
import { t } from '../i18n.js';
import { href } from '../router.js';
import type { ProducedBy as Producer } from '../types.js';

export function ProducedBy({ by }: { by: Producer | null | undefined }) {
  if (!by) return <span class="muted">—</span>;
  const node = by.node_id ? <span class="muted"> / {by.node_id}</span> : null;
  if (by.task_status === null) {
    return (
      <span class="produced-by">
        {by.task_name}
        {node} <span class="muted small">({t('task deleted')})</span>
      </span>
    );
  }
  return (
    <span class="produced-by">
      <a href={href(['tasks', by.task_id], by.node_id ? { job: by.node_id } : {})} title={t('The job that wrote it, on its task’s page')}>
        {by.task_name}
      </a>
      {node}
      {by.partial && (
        <>
          {' '}
          <PartialBadge status={by.task_status} />
        </>
      )}
    </span>
  );
}

/** An output of a task that failed or was stopped: part of what the task would have stored. */
export function PartialBadge({ status }: { status: string }) {
  return (
    <span class="badge partial" title={t('The task {status}: this is one of its partial outputs.', { status: t(status) })}>
      {t('partial')}
    </span>
  );
}
