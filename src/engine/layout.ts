import { rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where a task's files live under the data root:
 *   <dataDir>/store/<account>/<path>                 the data store
 *   <dataDir>/tasks/                                 marked as a top of directory hierarchies on ext2/3/4 (tasks-root.ts)
 *   <dataDir>/tasks/<task_id>/<node_id>/work/        a job's working directory (/var/data in the sandbox)
 *     inputs/<input>/, outputs/<output>/             made by the engine before the job starts (job-runner.ts)
 *   <dataDir>/tasks/<task_id>/<node_id>/stdout.log   its standard output
 *   <dataDir>/tasks/<task_id>/<node_id>/stderr.log   its standard error
 */
export class Layout {
  constructor(readonly dataDir: string) {}
  get dataStoreRoot(): string {
    return join(this.dataDir, 'store');
  }
  get tasksRoot(): string {
    return join(this.dataDir, 'tasks');
  }
  taskDir(taskId: string): string {
    return join(this.tasksRoot, taskId);
  }
  jobDir(taskId: string, nodeId: string): string {
    return join(this.taskDir(taskId), nodeId);
  }
  workDir(taskId: string, nodeId: string): string {
    return join(this.jobDir(taskId, nodeId), 'work');
  }
  stdoutLog(taskId: string, nodeId: string): string {
    return join(this.jobDir(taskId, nodeId), 'stdout.log');
  }
  stderrLog(taskId: string, nodeId: string): string {
    return join(this.jobDir(taskId, nodeId), 'stderr.log');
  }
}

/** A task's directory with everything in it: removed by the worker deleting a task, and by API replicas deleting one no worker holds. */
export async function removeTaskFiles(layout: Layout, taskId: string): Promise<void> {
  // Retried briefly: an entry created or a file still open there at that moment fails the removal (ENOTEMPTY, EBUSY).
  await rm(layout.taskDir(taskId), { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
}
