/** The names gdflow gives tasks whose request names none (GeneDock's default form, reruns). */

/**
 * The name of a task activated without one: GeneDock's default form, `<workflow>_<version>_<yyyymmddhhmmss>`, then the
 * task's id, which no other task has, so that a burst of unnamed activations of one workflow in one second gets names
 * that cannot collide (it used to probe `_2`, `_3`... one insert after another). The workflow's name is shortened to
 * keep the whole within the 128 characters of the name rule.
 */
export function generatedName(workflow: string, version: number, at: Date, taskId: string): string {
  return withUniqueSuffix(workflow, `_${version}_${timeStamp(at)}_${taskId}`);
}

/**
 * The name of a rerun: `<task>_rerun_<yyyymmddhhmmss>_<new task id>`. The id makes it unique, as in the generated name:
 * two reruns of one task in one second used to get the same name, and the second a 400.
 */
export function rerunName(task: string, at: Date, taskId: string): string {
  return withUniqueSuffix(task, `_rerun_${timeStamp(at)}_${taskId}`);
}

function timeStamp(at: Date): string {
  return at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** The base shortened to keep the whole within the 128 characters of the name rule. */
function withUniqueSuffix(base: string, suffix: string): string {
  return base.slice(0, 128 - suffix.length) + suffix;
}

/** How an activation names its task when the request names none: the GeneDock default, or a rerun's name. */
export type NameOfTask = (at: Date, taskId: string) => string;
