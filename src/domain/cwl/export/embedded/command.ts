import { renderCommand, type RenderedCommand } from '../../../render/index.js';
import type { ToolDefinition } from '../../../tools/definition.js';
import { coerceParameter } from '../../../tools/parameter-values.js';
import { outputFiles, stagedInputs } from './layout.js';
import type { CwlInputs, CwlRuntime, EmbeddedTool } from './types.js';

/**
 * An exported tool's command, made by gdflow's own renderer (domain/render/: the Jinja2 template and the shell lexer
 * that quotes every value for its place) from the values a CWL runner binds: the same command gdflow's job runs for
 * the same values, with the runner's working directory (`runtime.outdir`) where gdflow's job has /var/data. What
 * gdflow refuses (a value that cannot be quoted where it lands, a parameter out of range) fails the expression with
 * gdflow's reason.
 */

const absolute = (runtime: CwlRuntime, relative: string): string => `${runtime.outdir}/${relative}`;

function definitionOf(tool: EmbeddedTool, runtime: CwlRuntime): ToolDefinition {
  const { definition } = tool;
  return {
    alias: '',
    category: '',
    description: '',
    cmdTemplate: definition.cmdTemplate,
    image: definition.image,
    inputs: definition.inputs,
    outputs: definition.outputs,
    parameters: definition.parameters,
    // What the runner gives the job; the exported ResourceRequirement pins them to the gdflow tool's values.
    resources: { cpu: runtime.cores, memMb: runtime.ram, diskMb: runtime.outdirSize, network: definition.network },
    retry: null,
    callCaching: true,
  };
}

function render(tool: EmbeddedTool, inputs: CwlInputs, runtime: CwlRuntime): RenderedCommand {
  const staged = stagedInputs(tool.layout, inputs);
  const parameters: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(tool.definition.parameters)) {
    const id = tool.parameters[name]!;
    parameters[name] = coerceParameter(spec, inputs[id], `input '${id}' of ${tool.layout.tool}`);
  }
  return renderCommand({
    tool: definitionOf(tool, runtime),
    inputs: Object.fromEntries(Object.entries(staged).map(([port, { paths }]) => [port, paths.map((path) => absolute(runtime, path))])),
    outputs: Object.fromEntries(Object.keys(tool.layout.outputs).map((port) => [port, outputFiles(tool.layout, port, inputs).map((path) => absolute(runtime, path))])),
    parameters,
    workDir: runtime.outdir,
  });
}

/** The shell command (the tool's one argument, under ShellCommandRequirement). */
export function command(tool: EmbeddedTool, inputs: CwlInputs, runtime: CwlRuntime): string {
  return render(tool, inputs, runtime).command;
}
