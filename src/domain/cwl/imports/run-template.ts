import { invalid } from '../../errors.js';
import { isObject, type JsonObject } from '../../json.js';
import { blockFileProperty, emptyRunTemplate, type RunTemplate } from '../../workflows/run-template.js';
import { dataLocationOf } from '../runs/locations.js';
import type { CwlProcess, InputParameter } from '../model.js';
import { inputPort, outputPort, parameter, portShape } from './ports.js';

/**
 * The GeneDock run-parameter template of a workflow imported from CWL (INTERFACE.md 2.8; docs/cwl.md, "Import"), and
 * the CWL job object a filled template stands for (ActivateWorkflow of such a workflow starts a CWL run with it):
 * - `Inputs`, by workflow input: its File, Directory or list of them, as data items of the account (`/reads/a.fq`),
 *   each File with the input's first format;
 * - `Parameters`, under the one node `inputs`: every other workflow input, with its default as value;
 * - `Outputs`, by workflow output: its File or Directory outputs (a CWL run stores them under `/cwl/runs/<task>/`).
 */

/** The node the workflow's non-file inputs are listed under, in `Parameters`. */
export const CWL_PARAMETERS_NODE = 'inputs';

/** A data item named as a run template names it (`/reads/a.fq` or `<account>:/reads/a.fq`), as a location. */
function dataItem(name: string, account: string, where: string, directory: boolean): string {
  const colon = name.indexOf(':');
  const owner = colon > 0 && colon < name.indexOf('/') ? name.slice(0, colon) : account;
  const path = colon > 0 && colon < name.indexOf('/') ? name.slice(colon + 1) : name;
  if (owner !== account) throw invalid(`${where} '${name.slice(0, 200)}' is data of account '${owner}': a CWL run reads its own account's data only`);
  if (!path.startsWith('/')) throw invalid(`${where} '${name.slice(0, 200)}' must be a data item's path, starting with '/'`);
  return dataLocationOf(path, directory);
}

export function cwlRunTemplate(process: CwlProcess, description: string): RunTemplate {
  const template = emptyRunTemplate(description);
  const parameters: RunTemplate['Parameters'][string]['parameters'] = {};
  for (const input of process.inputs) {
    const port = inputPort(input);
    if (port === undefined) {
      const p = parameter(input);
      parameters[input.name] = { variable: true, required: Boolean(p.required), type: String(p.type), value: p.default, hint: String(p.hint) };
      continue;
    }
    template.Inputs[input.name] = {
      category: 'loaddata',
      alias: input.label ?? input.name,
      type: port.type as 'file' | 'directory',
      required: Boolean(port.required),
      minitems: Number(port.minitems),
      maxitems: Number(port.maxitems),
      formats: port.formats as string[],
      data: [{ name: '', enid: input.name, property: blockFileProperty() }],
    };
  }
  if (Object.keys(parameters).length > 0) template.Parameters[CWL_PARAMETERS_NODE] = { alias: process.label ?? 'workflow inputs', parameters };
  for (const output of process.outputs) {
    const port = outputPort(output);
    if (port === undefined) continue;
    const formats = String(port.formats);
    template.Outputs[output.name] = {
      alias: output.label ?? output.name,
      type: port.type as 'file' | 'directory',
      minitems: Number(port.minitems),
      maxitems: Number(port.maxitems),
      formats: formats === '' ? ['data'] : [formats],
      data: [{ name: '', description: '', property: blockFileProperty() }],
    };
  }
  return template;
}

/**
 * The CWL job object of a filled template (`parameters` of ActivateWorkflow) for the caller's `account`: each input's
 * data items as Files (or Directories) at gdflow: locations, a list for a list input; each parameter's value (a value
 * GeneDock's types cannot hold, given as JSON text, is read as JSON). Inputs left empty are left out: the workflow's
 * defaults apply.
 */
export function cwlJobFromTemplate(process: CwlProcess, template: RunTemplate, given: JsonObject, account: string): JsonObject {
  const job: JsonObject = {};
  const inputs = isObject(given.Inputs) ? given.Inputs : {};
  const values =
    isObject(given.Parameters) && isObject(given.Parameters[CWL_PARAMETERS_NODE]) && isObject(given.Parameters[CWL_PARAMETERS_NODE].parameters)
      ? given.Parameters[CWL_PARAMETERS_NODE].parameters
      : {};
  for (const input of process.inputs) {
    const shape = portShape(input.type);
    if (shape !== undefined) {
      const entry = inputs[input.name];
      const items = isObject(entry) && Array.isArray(entry.data) ? entry.data : (template.Inputs[input.name]?.data ?? []);
      const names = items.flatMap((item) => (isObject(item) && typeof item.name === 'string' && item.name !== '' ? [item.name] : []));
      // A data item says no format: a File takes the input's first, as GeneDock's template lists the input's formats.
      const format = shape.kind === 'file' ? input.format?.find((f) => !f.includes('$')) : undefined;
      const files = names.map((name, i) => ({
        class: shape.kind === 'file' ? 'File' : 'Directory',
        location: dataItem(name, account, `parameters.Inputs.${input.name}.data[${i}].name`, shape.kind === 'directory'),
        ...(format !== undefined ? { format } : {}),
      }));
      if (!shape.list && files.length > 1) throw invalid(`parameters.Inputs.${input.name} takes one ${shape.kind}, not ${files.length}`);
      if (files.length > 0) job[input.name] = shape.list ? files : files[0]!;
      continue;
    }
    const set = values[input.name];
    const value = isObject(set) && 'value' in set ? set.value : template.Parameters[CWL_PARAMETERS_NODE]?.parameters[input.name]?.value;
    if (value !== undefined && value !== null) job[input.name] = parameterValue(input, value);
  }
  return job;
}

/** A parameter's value as CWL wants it: JSON text read back for the types GeneDock shows as JSON. */
function parameterValue(input: InputParameter, value: unknown): unknown {
  const p = parameter(input);
  if (typeof value !== 'string' || !String(p.hint).endsWith('as JSON')) return value;
  try {
    return JSON.parse(value);
  } catch {
    throw invalid(`parameters.Parameters.${CWL_PARAMETERS_NODE}.parameters.${input.name}.value must be JSON (its CWL type is not a GeneDock type)`);
  }
}
