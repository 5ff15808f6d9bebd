import { invalid } from '../../errors.js';
import { defaultOutputName } from '../../tasks/activation.js';
import { basename } from '../../tasks/file-names.js';
import type { GraphNode, WorkflowGraph } from '../../workflows/graph.js';
import type { RunTemplate } from '../../workflows/run-template.js';
import { formatTerms } from './formats.js';
import { toolIds, type ToolIds } from './ids.js';
import { parameterDefault, parameterInput } from './parameters.js';
import { commandLineTool, type ToolExportOptions } from './tool.js';

/**
 * A gdflow workflow version as a CWL v1.2 Workflow (docs/cwl.md, "Export"): one step per tool node, its tool embedded
 * (`run:`, tool.ts); each loaddata node a workflow input (a File, or a list of Files), each storedata node a workflow
 * output. What a task may choose becomes a workflow input with the run template's default: the variable parameters
 * of every tool node (`<node>.<parameter>`) and the names of the stored files (`<store node>.name`, which gdflow takes
 * from the data names the task stores them under). A parameter the workflow fixes (`variable: false`) is the step's
 * default. The renderer the tools' expressions call is in the workflow's InlineJavascriptRequirement, once: CWL
 * requirements are inherited by the steps' tools.
 */

type JsonObject = Record<string, unknown>;

export interface WorkflowSource {
  account: string;
  project: string;
  name: string;
  version: number;
  description: string;
  graph: WorkflowGraph;
  /** The version's run template with its saved defaults (WorkflowService.runTemplate). */
  template: RunTemplate;
}

const blank = (value: unknown): boolean => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** The CWL source a link's files come from: a workflow input (a loaddata node) or a step's output. */
function linkSource(graph: WorkflowGraph, enid: string, ids: Map<string, ToolIds>): { source: string; producer: GraphNode; port: string } {
  const link = graph.links.get(enid)!;
  const producer = graph.byId.get(link.from.node)!;
  if (producer.kind === 'load') return { source: producer.id, producer, port: link.from.port };
  return { source: `${producer.id}/${ids.get(producer.id)!.outputs[link.from.port]}`, producer, port: link.from.port };
}

/** Whether a source may hold several files: a loaddata node taking more than one, or an output making a list. */
function holdsList(source: { producer: GraphNode; port: string }, template: RunTemplate): boolean {
  if (source.producer.kind === 'load') return template.Inputs[source.producer.id]!.maxitems > 1;
  return source.producer.tool!.definition.outputs[source.port]!.maxitems > 1;
}

/** The store node that names an output's files: the first (in the graph's order) of those it feeds. */
function namingSaveStep(graph: WorkflowGraph, node: GraphNode, port: string): GraphNode | undefined {
  const fed = new Set((node.outputs[port] ?? []).flatMap((enid) => graph.links.get(enid)!.to.map((to) => to.node)));
  return graph.nodes.find((candidate) => candidate.kind === 'store' && fed.has(candidate.id));
}

/** The file names a store node's items get by default: the run template's data names, else gdflow's generated ones. */
function savedNames(node: GraphNode, template: RunTemplate): string[] {
  const entry = template.Outputs[node.id]!;
  const count = Math.max(entry.data.length, 1);
  const format = entry.formats[0] ?? 'data';
  return Array.from({ length: count }, (_, i) => {
    const name = entry.data[i]?.name;
    return blank(name) ? defaultOutputName(node.id, i, count, format) : basename(String(name).trim());
  });
}

/** The workflow input holding the file names of a store node's items. */
const namesInput = (store: GraphNode, several: boolean): string => `${store.id}.${several ? 'names' : 'name'}`;

class WorkflowExport {
  readonly inputs: JsonObject = {};
  readonly outputs: JsonObject = {};
  readonly steps: JsonObject = {};
  readonly ids = new Map<string, ToolIds>();
  mergesLinks = false;

  constructor(
    private readonly source: WorkflowSource,
    private readonly options: Pick<ToolExportOptions, 'gdflowVersion'>,
  ) {}

  build(): void {
    const { graph } = this.source;
    for (const node of graph.nodes) if (node.kind === 'tool') this.ids.set(node.id, toolIds(node.tool!.definition));
    for (const node of graph.nodes) {
      if (node.kind === 'load') this.loadInput(node);
      else if (node.kind === 'store') this.saveStepOutput(node);
      else this.step(node);
    }
  }

  private loadInput(node: GraphNode): void {
    const entry = this.source.template.Inputs[node.id]!;
    const optional = !entry.required && entry.minitems === 0;
    const formats = formatTerms(entry.formats);
    const counts = entry.maxitems > 1 ? `${entry.minitems} to ${entry.maxitems} files.` : '';
    this.inputs[node.id] = {
      type: `${entry.maxitems > 1 ? 'File[]' : 'File'}${optional ? '?' : ''}`,
      ...(node.alias !== '' ? { label: node.alias } : {}),
      ...(formats.length > 0 ? { format: formats } : {}),
      ...(counts !== '' ? { doc: counts } : {}),
    };
  }

  private saveStepOutput(node: GraphNode): void {
    const from = linkSource(this.source.graph, node.inputs.data![0]!, this.ids);
    const description = node.parameters.description?.value;
    this.outputs[node.id] = {
      type: holdsList(from, this.source.template) ? 'File[]' : 'File',
      outputSource: from.source,
      ...(node.alias !== '' ? { label: node.alias } : {}),
      ...(!blank(description) ? { doc: String(description) } : {}),
    };
    if (from.producer.kind !== 'tool' || namingSaveStep(this.source.graph, from.producer, from.port) !== node) return;
    const several = from.producer.tool!.definition.outputs[from.port]!.maxitems > 1;
    const names = savedNames(node, this.source.template);
    this.inputs[namesInput(node, several)] = {
      type: several ? 'string[]' : 'string',
      default: several ? names : names[0],
      doc: `The file name${several ? 's' : ''} of output ${node.id} (gdflow takes ${several ? 'them' : 'it'} from the data name${several ? 's' : ''} the task stores ${several ? 'them' : 'it'} under).`,
    };
  }

  private step(node: GraphNode): void {
    const tool = node.tool!;
    const ids = this.ids.get(node.id)!;
    const stepInputs: JsonObject = {};
    for (const [port, enids] of Object.entries(node.inputs)) {
      if (enids.length === 0) continue;
      const sources = enids.map((enid) => linkSource(this.source.graph, enid, this.ids));
      if (tool.definition.inputs[port]!.maxitems > 1) {
        this.mergesLinks = true;
        stepInputs[ids.inputs[port]!] = { source: sources.map((s) => s.source), linkMerge: 'merge_flattened' };
        continue;
      }
      const only = sources[0]!;
      if (holdsList(only, this.source.template)) {
        throw invalid(
          `node '${node.id}': input '${port}' takes one file, but ${only.producer.id}.${only.port}, which feeds it, may hold several; CWL needs a list there`,
        );
      }
      stepInputs[ids.inputs[port]!] = only.source;
    }
    const entries = this.source.template.Parameters[node.id]!.parameters;
    for (const spec of Object.values(tool.definition.parameters)) {
      const entry = entries[spec.name]!;
      const withValue = { ...spec, default: entry.value };
      if (entry.variable) {
        const id = `${node.id}.${spec.name}`;
        this.inputs[id] = parameterInput(withValue);
        stepInputs[ids.parameters[spec.name]!] = id;
      } else {
        const value = parameterDefault(withValue);
        if (value !== undefined) stepInputs[ids.parameters[spec.name]!] = { default: value };
      }
    }
    for (const port of Object.keys(tool.definition.outputs)) {
      const saveStep = namingSaveStep(this.source.graph, node, port);
      if (saveStep) stepInputs[ids.outputNames[port]!] = namesInput(saveStep, tool.definition.outputs[port]!.maxitems > 1);
    }
    this.steps[node.id] = {
      ...(node.alias !== '' ? { label: node.alias } : {}),
      in: stepInputs,
      out: Object.values(ids.outputs),
      run: commandLineTool(
        { account: tool.accountName, project: tool.projectName, name: tool.name, version: tool.version, definition: tool.definition },
        { gdflowVersion: this.options.gdflowVersion },
      ),
    };
  }
}

/** The Workflow of a gdflow workflow version (without cwlVersion and $namespaces: document.ts adds them). */
export function cwlWorkflow(source: WorkflowSource, options: Required<ToolExportOptions>): JsonObject {
  const built = new WorkflowExport(source, options);
  built.build();
  const origin = `Exported by gdflow ${options.gdflowVersion} from workflow ${source.name} version ${source.version} (account ${source.account}, project ${source.project}).`;
  return {
    class: 'Workflow',
    label: source.name,
    doc: [source.description, origin].filter((part) => part !== '').join('\n\n'),
    requirements: {
      InlineJavascriptRequirement: { expressionLib: [options.library] },
      ...(built.mergesLinks ? { MultipleInputFeatureRequirement: {} } : {}),
    },
    inputs: built.inputs,
    outputs: built.outputs,
    steps: built.steps,
  };
}
