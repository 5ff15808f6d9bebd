/**
 * The graph of a task drawn from its jobs, for a task whose jobs are added as it runs (a CWL run: docs/tasks.md,
 * "Deferred jobs"), which its workflow's graph cannot show: every job a node (a step, a scatter instance, a
 * subworkflow's step, a skipped step), linked from the jobs it waits for (`upstream`), or else from the job whose
 * expansion added it (`parent`).
 */
import type { GraphEdge, GraphView, Job } from './types.js';

/** Whether the task's jobs were added at run time, so that only they can show its graph. */
export const hasRunTimeJobs = (jobs: readonly Job[]): boolean => jobs.some((job) => job.parent != null);

/** What the graph is made of: changes only when a job is added, not when one changes state (the layout stays put). */
export const jobGraphKey = (jobs: readonly Job[]): string => JSON.stringify(jobs.map((j) => [j.node_id, j.name, j.alias, j.upstream ?? [], j.parent ?? null]));

export function jobGraph(task: { workflow_name: string; workflow_version: number }, jobs: readonly Job[]): GraphView {
  const present = new Set(jobs.map((job) => job.node_id));
  const edges: GraphEdge[] = [];
  const link = (from: string, to: string) => {
    if (present.has(from)) edges.push({ enid: `${from}>${to}`, from, from_port: '', to, to_port: '', formats: [] });
  };
  // A job is linked from the jobs it waits for; one that waits for none (a scatter's instance, a step that reads only
  // workflow inputs) from the job that added it, where it starts. Every job is then reached from the run's first one,
  // without a link from a workflow to each of its steps crossing the drawing.
  for (const job of jobs) {
    const upstream = (job.upstream ?? []).filter((from) => present.has(from));
    if (upstream.length === 0 && job.parent) link(job.parent, job.node_id);
    for (const from of upstream) link(from, job.node_id);
  }
  return {
    workflow_name: task.workflow_name,
    workflow_version: task.workflow_version,
    nodes: jobs.map((job) => ({ node_id: job.node_id, kind: 'tool', name: job.name, alias: job.alias, app_id: '', inputs: [], outputs: [], depth: 0 })),
    edges,
  };
}
