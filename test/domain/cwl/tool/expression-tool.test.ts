import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindInputs } from '../../../../src/domain/cwl/index.js';
import { ExpressionError } from '../../../../src/domain/cwl/expressions/index.js';
import { runExpressionTool, ToolRunError } from '../../../../src/domain/cwl/tool/index.js';
import { yaml } from '../helpers.js';
import { expressionTool, fileAt, files, RUNTIME, sandbox, tempTree } from './helpers.js';

const EXPRESSION_TOOL = 'cwlVersion: v1.2\nclass: ExpressionTool\nrequirements: {InlineJavascriptRequirement: {}}\n';

async function run(text: string, job: Record<string, unknown>): Promise<unknown> {
  const tool = await expressionTool(EXPRESSION_TOOL + text);
  return runExpressionTool(tool, bindInputs(tool.inputs, job), RUNTIME, { files, evaluator: sandbox });
}

describe('CWL ExpressionTool', () => {
  it('evaluates the expression in the sandbox with inputs (contents loaded) and runtime, and checks the outputs', async () => {
    const dir = tempTree({ 'n.txt': '20\n' });
    const outputs = await run(
      yaml`
      inputs:
        f: {type: File, loadContents: true}
        words: 'string[]'
      outputs:
        doubled: int
        joined: string
        cores: int
        file: File
      expression: '\${ return {doubled: parseInt(inputs.f.contents) * 2, joined: inputs.words.join("-"), cores: runtime.cores, file: inputs.f}; }'
      `,
      { f: fileAt(`${dir}/n.txt`), words: ['a', 'b'] },
    );
    assert.deepEqual({ ...(outputs as object), file: undefined }, { doubled: 40, joined: 'a-b', cores: 1, file: undefined });
    assert.equal((outputs as { file: { contents: string } }).file.contents, '20\n');
  });

  it('refuses a result that is not an object, outputs of the wrong type, and a missing required output', async () => {
    const text = (expression: string): string => `inputs: []\noutputs:\n  n: int\n  s: string?\nexpression: '${expression}'\n`;
    await assert.rejects(run(text('$([1])'), {}), (e: Error) => e instanceof ToolRunError && /must give an object of outputs/.test(e.message));
    const wrongType = /outputs\.n: must be int, not the string "one"/;
    await assert.rejects(run(text('$({"n": "one"})'), {}), (e: Error) => e instanceof ToolRunError && wrongType.test(e.message));
    await assert.rejects(run(text('$({"s": "x"})'), {}), (e: Error) => e instanceof ToolRunError && /outputs\.n: is missing/.test(e.message));
    assert.deepEqual(await run(text('$({"n": 1})'), {}), { n: 1, s: null });
  });

  it('an output of type Any may be null (as cwltool allows: the next step takes its default)', async () => {
    assert.deepEqual(await run('inputs: []\noutputs: {output: Any}\nexpression: \'$({"output": null})\'\n', {}), { output: null });
    assert.deepEqual(await run("inputs: []\noutputs: {output: Any}\nexpression: '$({})'\n", {}), { output: null });
  });

  it('fails with an ExpressionError when the expression throws', async () => {
    await assert.rejects(run('inputs: []\noutputs: []\nexpression: \'${ throw new Error("no"); }\'\n', {}), ExpressionError);
  });
});
