import type { CommandLineTool, CwlProcess, ExpressionTool, Requirement, Workflow } from '../model.js';
import { splitFragment } from '../uri.js';
import { inputPort, outputPort, parameter, portShape } from './ports.js';

/**
 * What GeneDock's clients, the console and GetTool/GetWorkflow see of a process imported from CWL (docs/cwl.md,
 * "Import"): a tool definition (INTERFACE.md 2.2) and a workflow configuration (2.7) made from the CWL process. They
 * describe it: what runs is the CWL document the version keeps. `configs.cwl` says where a view comes from.
 */

type Json = Record<string, unknown>;

/** The category of every tool imported from CWL. */
export const CWL_CATEGORY = 'cwl';

/** `configs.cwl` of a view: the class and version of the CWL process it shows. */
export const cwlMarker = (process: CwlProcess): Json => ({ class: process.class, cwlVersion: process.cwlVersion });

/** The text of a process for people: its label and doc. */
export const processDescription = (process: CwlProcess): string => [process.label, process.doc].filter(Boolean).join('\n\n');

function keyed(entries: Array<[string, Json | undefined]>): Json {
  return Object.fromEntries(entries.filter((entry): entry is [string, Json] => entry[1] !== undefined));
}

/** The first declaration of a class, as a requirement or else a hint. */
function declared<C extends Requirement['class']>(process: CwlProcess, cls: C): Extract<Requirement, { class: C }> | undefined {
  return [...process.requirements, ...process.hints].find((r): r is Extract<Requirement, { class: C }> => r.class === cls);
}

const literal = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined);

/** DockerRequirement's image and ResourceRequirement's minimums, where they are written as values (not expressions). */
function requirements(process: CwlProcess): Json {
  const docker = declared(process, 'DockerRequirement');
  const resources = declared(process, 'ResourceRequirement');
  const network = declared(process, 'NetworkAccess');
  const cores = literal(resources?.coresMin) ?? literal(resources?.coresMax);
  const ram = literal(resources?.ramMin) ?? literal(resources?.ramMax);
  const disk = literal(resources?.outdirMin) ?? literal(resources?.outdirMax);
  return {
    container: { image: docker?.dockerPull ?? docker?.dockerImageId ?? '', type: 'docker' },
    resources: {
      cpu: cores === undefined ? 1 : Math.ceil(cores),
      mem: `${Math.ceil(ram ?? (process.cwlVersion === 'v1.0' ? 1024 : 256))}m`,
      disk: `${Math.ceil(disk ?? 1024)}m`,
      network: network?.networkAccess === true,
    },
  };
}

/** A CommandLineTool or ExpressionTool as a tool definition: files as ports, other inputs as parameters. */
export function toolView(process: CommandLineTool | ExpressionTool, name: string): Json {
  return {
    name,
    alias: process.label ?? name,
    category: CWL_CATEGORY,
    description: processDescription(process),
    homepage: '',
    tutorial: null,
    // The command is the CWL document's (baseCommand, arguments, bindings): gdflow cwl export gives it.
    cmd_template: '',
    inputs: keyed(process.inputs.map((i) => [i.name, inputPort(i)])),
    outputs: keyed(process.outputs.map((o) => [o.name, outputPort(o)])),
    parameters: keyed(process.inputs.filter((i) => portShape(i.type) === undefined).map((i) => [i.name, parameter(i)])),
    requirements: requirements(process),
    cwl: cwlMarker(process),
  };
}

/** Where a source of a workflow links from: `x` for a workflow input, `step/out` for a step's output. */
function enid(workflow: Workflow, source: string): string {
  const [document, fragment] = splitFragment(workflow.id);
  const prefix = fragment === undefined ? `${document}#` : `${workflow.id}/`;
  return source.startsWith(prefix) ? source.slice(prefix.length) : (splitFragment(source)[1] ?? source);
}

/**
 * A Workflow as a workflow configuration: a loaddata node for each File or Directory input, a node for each step
 * (`app_id` the tool or workflow version its process was imported as, else `cwl:<class>` for a process written inside
 * the workflow), a storedata node for each File or Directory output; links by `enid` as GeneDock writes them.
 */
export function workflowView(workflow: Workflow, appIdOf: (process: CwlProcess) => string | undefined): Json {
  const loads = workflow.inputs
    .filter((input) => portShape(input.type) !== undefined)
    .map((input) => ({ node_id: input.name, app_id: 'loaddata', name: 'loaddata', alias: input.label ?? input.name, outputs: { data: { enid: input.name } } }));
  const steps = workflow.steps.map((step) => {
    const appId = appIdOf(step.run);
    return {
      node_id: step.name,
      app_id: appId ?? `cwl:${step.run.class}`,
      // The tool's (or workflow's) name, as GeneDock nodes name theirs: /<account>/<name>/<version>.
      name: appId?.split('/').at(-2) ?? step.name,
      alias: step.label ?? step.name,
      inputs: Object.fromEntries(step.in.filter((i) => i.source.length > 0).map((i) => [i.name, i.source.map((s) => ({ enid: enid(workflow, s) }))])),
      outputs: Object.fromEntries(step.out.map((o) => [o.name, [{ enid: `${step.name}/${o.name}` }]])),
      parameters: Object.fromEntries(
        step.in.filter((i) => i.source.length === 0 && i.default !== undefined).map((i) => [i.name, { variable: false, value: i.default }]),
      ),
    };
  });
  const stores = workflow.outputs
    .filter((output) => portShape(output.type) !== undefined && output.outputSource.length > 0)
    .map((output) => ({
      node_id: output.name,
      app_id: 'storedata',
      name: 'storedata',
      alias: output.label ?? output.name,
      inputs: { data: { enid: enid(workflow, output.outputSource[0]!) } },
    }));
  return { nodelist: [...loads, ...steps, ...stores], cwl: cwlMarker(workflow) };
}
