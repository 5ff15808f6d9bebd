import type { DataProvenance, StateChanges } from '../store/store.js';

/**
 * What the engine has decided and not yet written (writer.ts): jobs added, task and job changes, the provenance
 * of stored items, and the leases to give up, written together as one `applyChanges` of the store.
 */
export class PendingChanges {
  newJobs: NonNullable<StateChanges['newJobs']> = [];
  tasks: NonNullable<StateChanges['tasks']> = [];
  jobs: NonNullable<StateChanges['jobs']> = [];
  stored: DataProvenance[] = [];
  release: string[] = [];

  get empty(): boolean {
    return this.newJobs.length + this.tasks.length + this.jobs.length + this.stored.length + this.release.length === 0;
  }

  /** Everything of a task, forgotten (its lease is gone, or it was deleted): nothing more is written for it. */
  dropTask(taskId: string): void {
    this.newJobs = this.newJobs.filter((j) => j.taskId !== taskId);
    this.tasks = this.tasks.filter((c) => c.id !== taskId);
    this.jobs = this.jobs.filter((c) => c.taskId !== taskId);
    this.stored = this.stored.filter((p) => p.taskId !== taskId);
    this.release = this.release.filter((id) => id !== taskId);
  }

  /** The tasks the changes are about (for a write that failed: whether any of them is still held). */
  taskIds(): Set<string> {
    return new Set([
      ...this.newJobs.map((j) => j.taskId),
      ...this.tasks.map((c) => c.id),
      ...this.jobs.map((c) => c.taskId),
      ...this.stored.map((p) => p.taskId),
    ]);
  }

  changes(): Pick<StateChanges, 'newJobs' | 'tasks' | 'jobs' | 'stored' | 'release'> {
    return { newJobs: this.newJobs, tasks: this.tasks, jobs: this.jobs, stored: this.stored, release: this.release };
  }
}
