/**
 * Why a command could not be rendered, which decides whether PutTool's trial render refuses the tool
 * (domain/tools/definition.ts) or leaves it to the task that brings the values:
 *  - `limit`: the template goes beyond a documented limit (length, nesting, evaluation steps, output size);
 *  - `template`: the template is not Jinja2;
 *  - `placement`: a user value lands where no value of its kind can be quoted for the shell (right after `$`,
 *    inside `$'...'`, a file path inside shell arithmetic, ...): every task would fail the same way;
 *  - `value`: this value cannot be used here (a string that is no integer inside arithmetic, a line break inside
 *    a comment, a render failure of the template's own logic on this value); another value may do.
 */
export type RenderFailure = 'limit' | 'template' | 'placement' | 'value';

/** A tool's command could not be rendered; the message names the member or construct at fault. */
export class RenderError extends Error {
  constructor(
    message: string,
    readonly failure: RenderFailure = 'value',
  ) {
    super(message);
    this.name = 'RenderError';
  }
}

/** A template beyond one of the limits docs/templates.md documents; the message says which. */
export const limitError = (message: string): RenderError => new RenderError(`${message} (docs/templates.md, "Limits")`, 'limit');
