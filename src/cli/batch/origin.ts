/**
 * Which workflow a run-parameter template belongs to. The template itself (INTERFACE.md 2.8) has no such member,
 * and gwc and the server take it as it is, so `gdflow workflow getparam -o` names the workflow in a YAML comment
 * on the first line, which `gdflow batch` reads when neither --workflow nor workflow_name says.
 */

const ORIGIN = /^#\s*workflow:\s*([A-Za-z][-A-Za-z0-9_]*)(?:\s+version\s+([1-9][0-9]*))?/;

export function originComment(name: string, version?: number): string {
  return `# workflow: ${name}${version !== undefined ? ` version ${version}` : ''} (this line tells 'gdflow batch' which workflow to run)\n`;
}

/** The workflow a template's first line names, if it does. */
export function templateOrigin(text: string): { name: string; version?: number } | undefined {
  const match = ORIGIN.exec(text.replace(/^\uFEFF/, ''));
  if (!match) return undefined;
  return { name: match[1]!, ...(match[2] !== undefined ? { version: Number(match[2]) } : {}) };
}
