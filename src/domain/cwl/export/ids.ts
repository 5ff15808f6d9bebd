import type { ToolDefinition } from '../../tools/definition.js';

/**
 * The CWL ids of an exported tool's inputs and outputs. A gdflow tool keeps inputs, parameters and outputs apart
 * (`inputs.bam`, `parameters.bam`, `outputs.bam` may all exist), where a CWL process has one list of inputs and one of
 * outputs whose ids must differ from each other. gdflow's names are identifiers (letters, digits, `_`), so an id with
 * a dot can never be one of them: each name keeps its own id, and only a name already taken gets a dotted one.
 *
 * | gdflow | CWL input or output id |
 * |---|---|
 * | input `reads` | input `reads` |
 * | parameter `threads` | input `threads` (`threads.parameter` when an input is called `threads`) |
 * | output `bam` | output `bam` (`bam.output` when an input or parameter is called `bam`) |
 * | the file names of output `bam` | input `bam.name` (`bam.names`, a list, when the output may hold several files) |
 */

export interface ToolIds {
  /** Input port → the CWL input holding its files. */
  inputs: Record<string, string>;
  /** Parameter → the CWL input holding its value. */
  parameters: Record<string, string>;
  /** Output port → the CWL input holding the names of its files. */
  outputNames: Record<string, string>;
  /** Output port → the CWL output. */
  outputs: Record<string, string>;
}

export function toolIds(definition: Pick<ToolDefinition, 'inputs' | 'outputs' | 'parameters'>): ToolIds {
  const inputs = Object.fromEntries(Object.keys(definition.inputs).map((port) => [port, port]));
  const parameters = Object.fromEntries(Object.keys(definition.parameters).map((name) => [name, name in inputs ? `${name}.parameter` : name]));
  const taken = new Set([...Object.values(inputs), ...Object.values(parameters)]);
  const outputNames = Object.fromEntries(Object.values(definition.outputs).map((port) => [port.name, `${port.name}.${port.maxitems > 1 ? 'names' : 'name'}`]));
  const outputs = Object.fromEntries(Object.keys(definition.outputs).map((port) => [port, taken.has(port) ? `${port}.output` : port]));
  return { inputs, parameters, outputNames, outputs };
}
