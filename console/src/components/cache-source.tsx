/**
 * A job that reused another's outputs from the call cache (its `cached_from`, docs/tasks.md "Call caching"): a
 * "from cache" mark, and the job it reused with a link to that job on its task's page. The cache reaches across the
 * account's projects; a source task outside the signed-in project (or deleted since) is named by its id alone.
 */
import { ApiError } from '../api.js';
import { t } from '../i18n.js';
import { href } from '../router.js';
import { api, projectPath } from '../session.js';
import type { Task } from '../types.js';
import { useLoad } from './common.js';

export function CachedMark() {
  return <span class="badge cached">{t('from cache')}</span>;
}

/** A job id is `<task id>_<24 hex>_<node id>` (docs/wire.md §4). */
function partsOf(jobId: string): { taskId: string; nodeId: string } | undefined {
  const m = /^([0-9a-f]{24})_[0-9a-f]{24}_(.+)$/.exec(jobId);
  return m ? { taskId: m[1]!, nodeId: m[2]! } : undefined;
}

export function CacheSource({ jobId }: { jobId: string }) {
  const parts = partsOf(jobId);
  const source = useLoad(
    async (signal) => {
      if (!parts) return undefined;
      try {
        return await api().json<Task>('GET', projectPath(`tasks/${encodeURIComponent(parts.taskId)}/`), { signal });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }
    },
    [jobId],
  );
  return (
    <div class="cache-source">
      {parts && source.data ? (
        <a href={href(['tasks', parts.taskId], { job: parts.nodeId })}>{t('{node} in task {task}', { node: parts.nodeId, task: source.data.task_name })}</a>
      ) : (
        !source.loading && parts && <span class="muted">{t('a task of another project, or deleted since')}</span>
      )}
      <code class="wrap small muted">{jobId}</code>
    </div>
  );
}
