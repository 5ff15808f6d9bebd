import vm from 'node:vm';

/**
 * A CWL runner's evaluation of an exported document's JavaScript, as cwltool does it: a fresh context per expression
 * in which the requirement's expressionLib runs first, with `inputs`, `runtime` and `self` set; `$(...)` is an
 * expression and `${...}` a function body. Results come back through JSON (they leave the context's realm).
 */
export function evaluateExpression(expressionLib: string[], expression: string, values: { inputs: unknown; runtime?: unknown; self?: unknown }): unknown {
  const context = vm.createContext({
    inputs: JSON.parse(JSON.stringify(values.inputs)),
    runtime: values.runtime ?? null,
    self: values.self === undefined ? null : JSON.parse(JSON.stringify(values.self)),
  });
  for (const lib of expressionLib) vm.runInContext(lib, context);
  const text = expression.trim();
  const code = text.startsWith('${') ? `(function () {${text.slice(2, -1)}})()` : `(${text.slice(2, -1)})`;
  const result: unknown = vm.runInContext(code, context, { timeout: 10_000 });
  return result === undefined ? undefined : JSON.parse(JSON.stringify(result));
}

/** The message of what an evaluation throws, or undefined when it returns. */
export function evaluationError(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { message?: string }).message ?? String(error);
  }
}
