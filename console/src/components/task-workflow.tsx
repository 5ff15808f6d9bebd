/**
 * The "Workflow" fact of a task's page: a link to the workflow version the task ran, found where the task's graph is
 * looked for (the task's project, else the public account), and only when that version is the task's (same workflow
 * id). A task that ran no registered workflow (a CWL run of a posted document, which is named after its process) or
 * whose version was deleted shows the name without a link: a link would lead to nothing, or to another workflow of the
 * same name.
 */
import { ApiError } from '../api.js';
import { useLoad } from './common.js';
import { t } from '../i18n.js';
import { href } from '../router.js';
import { api, ownerPath, session } from '../session.js';
import type { Task } from '../types.js';

const PUBLIC = 'public';

/** The owner whose workflow the task ran (undefined: the signed-in account's), or null when none is the task's. */
async function workflowOwner(task: Task, signal: AbortSignal): Promise<string | undefined | null> {
  const owners = session()?.account === PUBLIC ? [undefined] : [undefined, PUBLIC];
  for (const owner of owners) {
    try {
      const { workflows } = await api().json<{ workflows: Array<{ version: number; workflow_id?: string }> }>(
        'GET',
        ownerPath(owner, `workflows/${encodeURIComponent(task.workflow_name)}/`),
        { query: { workflow_version: task.workflow_version }, signal },
      );
      const version = workflows.find((w) => w.version === task.workflow_version);
      if (version && (task.workflow_id === undefined || version.workflow_id === task.workflow_id)) return owner;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
    }
  }
  return null;
}

export function TaskWorkflow({ task }: { task: Task }) {
  const owner = useLoad((signal) => workflowOwner(task, signal), [task.workflow_name, task.workflow_version, task.workflow_id]);
  const label = `${task.workflow_name} v${task.workflow_version}`;
  if (owner.loading || owner.error !== undefined || owner.data === null) {
    return (
      <span data-workflow-link="none" title={owner.data === null ? t('No registered workflow version is this task’s.') : undefined}>
        {label}
      </span>
    );
  }
  return <a href={href(['workflows', task.workflow_name, task.workflow_version], owner.data ? { owner: owner.data } : undefined)}>{label}</a>;
}
