import { createHash } from 'node:crypto';
import type { Client } from '../../client/client.js';
import { DataPathError, formatDataItemName, parseDataItemName, type DataRef } from '../../client/data-names.js';
import type { ActivateWorkflowRequest, RunParameters } from '../../client/types.js';
import { parameterProblem, typedValue } from '../parameter-values.js';
import type { SampleSheet, SheetRow } from './sheet.js';
import { fillString, fillTemplate, placeholdersIn, wholePlaceholder } from './template.js';

/**
 * Check every row of a batch before anything is submitted: the sheet's shape, the placeholders,
 * task names, data names, and parameter values against the workflow's own run template (formats,
 * item counts, types and ranges, fixed values), then (optionally) that every input exists.
 * The result is either a plan of one ActivateWorkflow request per row, or the list of problems.
 */

export interface BatchTemplate {
  workflow_name: string;
  workflow_version?: number;
  workflow_owner?: string;
  /** Task name template (may hold placeholders); falls back to parameters.name. */
  task_name?: string;
  parameters: RunParameters;
}

export interface PlannedRow {
  row: SheetRow;
  /** What identifies the row in the submission log. */
  key: string;
  request: ActivateWorkflowRequest;
  /** Input data the task will read. */
  inputs: DataRef[];
}

export interface Problem {
  row?: SheetRow;
  message: string;
}

export const describeProblem = (p: Problem): string => (p.row ? `row ${p.row.row} (line ${p.row.line}): ${p.message}` : p.message);

const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{2,127}$/;
const PUBLIC_ACCOUNT = 'public';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function rowKey(row: SheetRow, columns: string[], keyColumn: string | undefined): string {
  if (keyColumn !== undefined) return row.values[keyColumn] ?? '';
  // The content of the row: a fixed row keeps its key, an edited row is a new row.
  return createHash('sha256')
    .update(JSON.stringify(columns.map((c) => row.values[c] ?? '')))
    .digest('hex')
    .slice(0, 16);
}

function matchesFormat(name: string, formats: string[] | undefined): boolean {
  if (!formats || formats.length === 0) return true;
  const lower = name.toLowerCase();
  return formats.some((f) => lower.endsWith(`.${f.toLowerCase()}`));
}

export interface ValidateOptions {
  account: string;
  /** The workflow's run template from the server (GetExecutableWorkflow), to check against. */
  reference?: RunParameters;
  keyColumn?: string;
}

export interface RowInputs {
  row: SheetRow;
  inputs: DataRef[];
}

/**
 * The plan (one request per good row), every problem found, and the well-formed inputs of every
 * row (good or bad) for the existence check.
 */
export function planBatch(
  template: BatchTemplate,
  sheet: SampleSheet,
  options: ValidateOptions,
): { planned: PlannedRow[]; problems: Problem[]; inputs: RowInputs[] } {
  const problems: Problem[] = [];
  const used = placeholdersIn({ task_name: template.task_name, parameters: template.parameters });
  const unknown = [...used].filter((name) => !sheet.columns.includes(name));
  if (unknown.length > 0) {
    problems.push({
      message: `the template uses ${unknown.map((n) => `{$${n}}`).join(', ')}, but the sample sheet has no such column (columns: ${sheet.columns.join(', ')})`,
    });
  }
  if (options.keyColumn !== undefined && !sheet.columns.includes(options.keyColumn)) {
    problems.push({ message: `--key column '${options.keyColumn}' is not in the sample sheet (columns: ${sheet.columns.join(', ')})` });
  }
  const nameTemplate =
    template.task_name ?? (typeof template.parameters.name === 'string' && template.parameters.name !== '' ? template.parameters.name : undefined);
  if (nameTemplate !== undefined && sheet.rows.length > 1 && placeholdersIn(nameTemplate).size === 0) {
    problems.push({
      message: `every row would get the task name '${nameTemplate}' (task names are unique in a project): put a placeholder in it, e.g. '{$${sheet.columns[0]}}_${nameTemplate}', or leave it empty to have names generated`,
    });
  }
  if (problems.length > 0) return { planned: [], problems, inputs: [] };

  const reference = options.reference;
  const taskNames = new Map<string, number>();
  const outputs = new Map<string, number>();
  const keys = new Map<string, number>();
  const planned: PlannedRow[] = [];
  const allInputs: RowInputs[] = [];

  for (const row of sheet.rows) {
    const rowProblems: string[] = [];
    if (row.problem) rowProblems.push(row.problem);
    for (const name of used) if ((row.values[name] ?? '') === '') rowProblems.push(`column '${name}' is empty`);
    const key = rowKey(row, sheet.columns, options.keyColumn);
    if (key === '') rowProblems.push(`key column '${options.keyColumn}' is empty`);
    const sameKey = keys.get(key);
    if (sameKey !== undefined && key !== '')
      rowProblems.push(options.keyColumn ? `key '${key}' (column ${options.keyColumn}) is also row ${sameKey}'s` : `is identical to row ${sameKey}`);
    keys.set(key, row.row);

    const parameters = fillTemplate(template.parameters, row.values);
    const taskName = nameTemplate === undefined ? undefined : fillString(nameTemplate, row.values);
    if (taskName !== undefined) {
      if (!NAME_PATTERN.test(taskName)) rowProblems.push(`task name '${taskName}' is not valid (3-128 letters, digits, '-' or '_', starting with a letter)`);
      const other = taskNames.get(taskName);
      if (other !== undefined) rowProblems.push(`task name '${taskName}' is also row ${other}'s`);
      taskNames.set(taskName, row.row);
      parameters.name = taskName;
    }

    // Inputs: known load nodes, well-formed readable names of an accepted format, item counts.
    const inputs: DataRef[] = [];
    for (const [nodeId, entry] of Object.entries(parameters.Inputs ?? {})) {
      const ref = reference?.Inputs?.[nodeId];
      if (reference && !ref) {
        rowProblems.push(`Inputs.${nodeId} is not a loaddata node of the workflow (it has ${Object.keys(reference.Inputs ?? {}).join(', ') || 'none'})`);
        continue;
      }
      if (!isObject(entry)) continue;
      const items = (Array.isArray(entry.data) ? entry.data : []).filter((item) => isObject(item) && typeof item.name === 'string' && item.name.trim() !== '');
      const min = ref?.minitems ?? entry.minitems;
      const max = ref?.maxitems ?? entry.maxitems;
      if ((ref?.required ?? entry.required) && items.length === 0) rowProblems.push(`Inputs.${nodeId} has no data, but the input is required`);
      else if (typeof min === 'number' && items.length < min) rowProblems.push(`Inputs.${nodeId} has ${items.length} items; at least ${min} are needed`);
      if (typeof max === 'number' && items.length > max) rowProblems.push(`Inputs.${nodeId} has ${items.length} items; at most ${max} are allowed`);
      for (const item of items) {
        const name = (item as { name: string }).name;
        try {
          const parsed = parseDataItemName(name, options.account);
          if (parsed.account !== options.account && parsed.account !== PUBLIC_ACCOUNT)
            rowProblems.push(`input '${name}' belongs to account '${parsed.account}'; a task reads only your own and public data`);
          else if (!matchesFormat(parsed.path, ref?.formats ?? entry.formats))
            rowProblems.push(`input '${name}' (Inputs.${nodeId}) has none of the accepted formats ${(ref?.formats ?? entry.formats ?? []).join(', ')}`);
          else inputs.push(parsed);
        } catch (error) {
          rowProblems.push(`Inputs.${nodeId}: ${error instanceof DataPathError ? error.message : String(error)}`);
        }
      }
    }

    // Outputs: known store nodes, names in the own account, no two tasks writing the same item.
    for (const [nodeId, entry] of Object.entries(parameters.Outputs ?? {})) {
      if (reference && !reference.Outputs?.[nodeId]) {
        rowProblems.push(`Outputs.${nodeId} is not a storedata node of the workflow (it has ${Object.keys(reference.Outputs ?? {}).join(', ') || 'none'})`);
        continue;
      }
      if (!isObject(entry) || !Array.isArray(entry.data)) continue;
      for (const item of entry.data) {
        if (!isObject(item) || typeof item.name !== 'string' || item.name.trim() === '') continue;
        try {
          const parsed = parseDataItemName(item.name, options.account);
          if (parsed.account !== options.account) {
            rowProblems.push(`output '${item.name}' is in account '${parsed.account}'; a task writes only to your own account`);
            continue;
          }
          const full = formatDataItemName(parsed);
          const other = outputs.get(full);
          if (other !== undefined)
            rowProblems.push(`output '${full}' is also written by row ${other}${other === row.row ? '' : ' (put a placeholder in the output name)'}`);
          outputs.set(full, row.row);
        } catch (error) {
          rowProblems.push(`Outputs.${nodeId}: ${error instanceof DataPathError ? error.message : String(error)}`);
        }
      }
    }

    // Parameters: known tool nodes and names; values of the declared type and range; fixed ones kept.
    for (const [nodeId, entry] of Object.entries(parameters.Parameters ?? {})) {
      const refNode = reference?.Parameters?.[nodeId];
      if (reference && !refNode) {
        rowProblems.push(`Parameters.${nodeId} is not a tool node of the workflow (it has ${Object.keys(reference.Parameters ?? {}).join(', ') || 'none'})`);
        continue;
      }
      const original = template.parameters.Parameters?.[nodeId]?.parameters ?? {};
      for (const [name, given] of Object.entries(entry?.parameters ?? {})) {
        const spec = refNode?.parameters?.[name] ?? (isObject(given) ? given : {});
        if (reference && !refNode?.parameters?.[name]) {
          rowProblems.push(`Parameters.${nodeId}.${name} is not a parameter of the node's tool`);
          continue;
        }
        if (!isObject(given)) continue;
        const raw = original[name]?.value;
        // A cell that fills the whole value takes the parameter's type ("8" → 8, "true" → true).
        if (typeof raw === 'string' && wholePlaceholder(raw) !== undefined && typeof given.value === 'string') given.value = typedValue(given.value, spec.type);
        const problem = parameterProblem(spec, given.value);
        if (problem) rowProblems.push(`Parameters.${nodeId}.${name} ${problem}`);
        else if (reference && spec.variable === false && 'value' in given && JSON.stringify(given.value) !== JSON.stringify(spec.value)) {
          rowProblems.push(`Parameters.${nodeId}.${name} is fixed by the workflow to ${JSON.stringify(spec.value)}`);
        }
      }
    }

    for (const message of rowProblems) problems.push({ row, message });
    allInputs.push({ row, inputs });
    if (rowProblems.length === 0) {
      planned.push({
        row,
        key,
        inputs,
        request: {
          workflow_name: template.workflow_name,
          ...(template.workflow_version !== undefined ? { workflow_version: template.workflow_version } : {}),
          ...(template.workflow_owner !== undefined ? { workflow_owner: template.workflow_owner } : {}),
          ...(taskName !== undefined ? { task_name: taskName } : {}),
          parameters,
        },
      });
    }
  }
  return { planned, problems, inputs: allInputs };
}

/**
 * Check that every input of the plan exists, with one listing per directory (not one request
 * per file): a thousand rows of reads in one directory cost one request.
 */
const LISTING_LIMIT = 100_000;

export async function checkInputsExist(client: Client, planned: RowInputs[]): Promise<Problem[]> {
  const dirs = new Map<string, Set<string>>();
  for (const plan of planned) {
    for (const ref of plan.inputs) {
      const dir = `${ref.account}:${ref.path.slice(0, ref.path.lastIndexOf('/') + 1)}`;
      if (!dirs.has(dir)) dirs.set(dir, new Set());
    }
  }
  const failed = new Map<string, string>();
  for (const dir of dirs.keys()) {
    try {
      const list = await client.listData(dir, { limit: LISTING_LIMIT });
      // A truncated listing proves nothing about the names past its end: leave those to the server.
      if (list.count >= LISTING_LIMIT) failed.set(dir, 'too many items to check');
      for (const item of list.items) dirs.get(dir)!.add(item.name);
    } catch (error) {
      // A directory that cannot be listed leaves its files unchecked here; the server checks at submission.
      if (!(error instanceof Error && 'status' in error && (error as { status: number }).status === 404))
        failed.set(dir, error instanceof Error ? error.message : String(error));
    }
  }
  const problems: Problem[] = [];
  for (const plan of planned) {
    for (const ref of plan.inputs) {
      const dir = `${ref.account}:${ref.path.slice(0, ref.path.lastIndexOf('/') + 1)}`;
      if (failed.has(dir)) continue;
      const name = formatDataItemName(ref);
      if (!dirs.get(dir)!.has(name)) problems.push({ row: plan.row, message: `input '${name}' does not exist in the data store` });
    }
  }
  return problems;
}
