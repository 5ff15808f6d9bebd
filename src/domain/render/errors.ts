/** A tool's command could not be rendered; the message names the member or construct at fault. */
export class RenderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderError';
  }
}
