import type { ToolDefinition } from '../../tools/definition.js';
import type { EmbeddedDefinition, EmbeddedLayout, EmbeddedTool } from './embedded/types.js';
import { formatTerm } from './formats.js';
import { toolIds, type ToolIds } from './ids.js';
import { readableJson } from './json-text.js';
import { fileInput, parameterInput } from './parameters.js';

/**
 * A gdflow tool version as a CWL v1.2 CommandLineTool (docs/cwl.md, "Export").
 *
 * The command is the tool's own: `cmd_template` goes into the document as it is, and gdflow's renderer, embedded in
 * expressionLib (embedded/), renders it when the runner binds the inputs, quoting every value for its place in the
 * shell as gdflow does; the result is the tool's one argument under ShellCommandRequirement, so the runner runs
 * `/bin/sh -c <command>` as gdflow's executors do. Files are where gdflow's job has them, relative to the working
 * directory (InitialWorkDirRequirement stages the inputs at `inputs/<input>/<name>` and makes `outputs/<output>/`),
 * the image is a DockerRequirement hint, the resources a ResourceRequirement whose minimum and maximum are the tool's
 * (so that `requirements.resources.cpu` in the template renders as in gdflow), the formats CWL format terms
 * (formats.ts).
 */

type Json = unknown;
type JsonObject = Record<string, Json>;

/** The tool version being exported, and where it comes from (for the document's doc). */
export interface ToolSource {
  account: string;
  project: string;
  name: string;
  version: number;
  definition: ToolDefinition;
}

export interface ToolExportOptions {
  /** gdflow's version, written in the document's doc. */
  gdflowVersion: string;
  /**
   * The embedded code (library.ts) the document carries, as a document of its own; absent when the workflow that
   * embeds the tool carries it once for all its steps (CWL requirements are inherited by the steps' tools).
   */
  library?: string;
}

/** An expression that calls a function of the embedded code with static arguments written as JSON. */
export function embeddedCall(fn: string, staticArguments: Json[], runtimeArguments: string[]): string {
  const args = [...staticArguments.map((value) => readableJson(value, '  ')), ...runtimeArguments].join(', ');
  return `\${\n  return gdflow.${fn}(${args});\n}`;
}

function layoutOf(source: ToolSource, ids: ToolIds): EmbeddedLayout {
  const { definition } = source;
  return {
    tool: `${source.name}:${source.version}`,
    inputs: Object.fromEntries(Object.values(definition.inputs).map((p) => [p.name, { id: ids.inputs[p.name]!, minitems: p.minitems, maxitems: p.maxitems }])),
    outputs: Object.fromEntries(
      Object.values(definition.outputs).map((p) => [
        p.name,
        { names: ids.outputNames[p.name]!, formats: p.formats, minitems: p.minitems, maxitems: p.maxitems },
      ]),
    ),
  };
}

/** The layout with only one port: what an expression about that port needs. */
const onePort = (layout: EmbeddedLayout, kind: 'inputs' | 'outputs', port: string): EmbeddedLayout => ({
  tool: layout.tool,
  inputs: kind === 'inputs' ? { [port]: layout.inputs[port]! } : {},
  outputs: kind === 'outputs' ? { [port]: layout.outputs[port]! } : {},
});

function embeddedDefinition(definition: ToolDefinition): EmbeddedDefinition {
  const { cmdTemplate, image, inputs, outputs, parameters } = definition;
  return { cmdTemplate, image, network: definition.resources.network, inputs, outputs, parameters };
}

function requirements(source: ToolSource, layout: EmbeddedLayout, options: ToolExportOptions): JsonObject {
  const { cpu, memMb, diskMb, network } = source.definition.resources;
  return {
    ...(options.library !== undefined ? { InlineJavascriptRequirement: { expressionLib: [options.library] } } : {}),
    ShellCommandRequirement: {},
    InitialWorkDirRequirement: { listing: [embeddedCall('workDir', [layout], ['inputs'])] },
    ResourceRequirement: { coresMin: cpu, coresMax: cpu, ramMin: memMb, ramMax: memMb, outdirMin: diskMb, outdirMax: diskMb },
    ...(network ? { NetworkAccess: { networkAccess: true } } : {}),
  };
}

/**
 * Every output is required: gdflow fails a job whose command did not write one of its output files. A single file's
 * glob finding nothing fails the step in every runner; a list is checked against the names it should hold.
 */
function outputsOf(source: ToolSource, ids: ToolIds, layout: EmbeddedLayout): JsonObject {
  return Object.fromEntries(
    Object.values(source.definition.outputs).map((port) => {
      const format = port.formats[0];
      const only = onePort(layout, 'outputs', port.name);
      const several = port.maxitems > 1;
      const output: JsonObject = {
        type: several ? 'File[]' : 'File',
        ...(format !== undefined ? { format: formatTerm(format) } : {}),
        ...(port.hint !== '' ? { doc: port.hint } : {}),
        outputBinding: {
          glob: embeddedCall('outputFiles', [only, port.name], ['inputs']),
          ...(several ? { outputEval: embeddedCall('collected', [only, port.name], ['inputs', 'self']) } : {}),
        },
      };
      return [ids.outputs[port.name]!, output];
    }),
  );
}

function inputsOf(source: ToolSource, ids: ToolIds): JsonObject {
  const { definition } = source;
  const names = Object.values(definition.outputs).map((port): [string, JsonObject] => {
    const several = port.maxitems > 1;
    const doc = several
      ? `The names of the files of output ${ids.outputs[port.name]} (gdflow takes them from the data names a task stores them under).`
      : `The name of the file of output ${ids.outputs[port.name]} (gdflow takes it from the data name a task stores it under).`;
    return [ids.outputNames[port.name]!, { type: several ? 'string[]?' : 'string?', doc }];
  });
  return {
    ...Object.fromEntries(Object.values(definition.inputs).map((port) => [ids.inputs[port.name]!, fileInput(port)])),
    ...Object.fromEntries(Object.values(definition.parameters).map((spec) => [ids.parameters[spec.name]!, parameterInput(spec)])),
    ...Object.fromEntries(names),
  };
}

function docOf(source: ToolSource, options: ToolExportOptions): string {
  const origin = `Exported by gdflow ${options.gdflowVersion} from tool ${source.name} version ${source.version} (account ${source.account}, project ${source.project}).`;
  return [source.definition.description, origin].filter((part) => part !== '').join('\n\n');
}

/** The CommandLineTool of a gdflow tool version (without cwlVersion and $namespaces: document.ts adds them). */
export function commandLineTool(source: ToolSource, options: ToolExportOptions): JsonObject {
  const { definition } = source;
  const ids = toolIds(definition);
  const layout = layoutOf(source, ids);
  const command: EmbeddedTool = { layout, definition: embeddedDefinition(definition), parameters: ids.parameters };
  const stdin = Object.values(definition.inputs).find((port) => port.stream);
  const stdout = Object.values(definition.outputs).find((port) => port.stream);
  return {
    class: 'CommandLineTool',
    label: definition.alias !== '' ? definition.alias : source.name,
    doc: docOf(source, options),
    requirements: requirements(source, layout, options),
    // A hint: gdflow's bwrap and host executors run the host's programs too, and a runner refuses to run a tool that
    // requires a container without one (cwltool --no-container). Not with dockerOutputDirectory /var/data, which CWL
    // wants only in requirements; the command names the runner's output directory wherever it is (embedded/).
    hints: { DockerRequirement: { dockerPull: definition.image } },
    inputs: inputsOf(source, ids),
    outputs: outputsOf(source, ids, layout),
    arguments: [{ valueFrom: embeddedCall('command', [command], ['inputs', 'runtime']), shellQuote: false }],
    ...(stdin ? { stdin: embeddedCall('stdin', [onePort(layout, 'inputs', stdin.name), stdin.name], ['inputs', 'runtime']) } : {}),
    ...(stdout ? { stdout: embeddedCall('stdout', [onePort(layout, 'outputs', stdout.name), stdout.name], ['inputs']) } : {}),
  };
}
