/**
 * Which workflow a run-parameter template belongs to. The template itself (INTERFACE.md 2.8) has no such member,
 * and gwc and the server take it as it is, so `gdflow workflow getparam -o` names the workflow in a YAML comment
 * on the first line (with its owner when it is another account's, e.g. a public workflow), which `gdflow batch`
 * and `gdflow workflow run -p` read when neither the command line nor the document says.
 */

const ORIGIN = /^#\s*workflow:\s*([A-Za-z][-A-Za-z0-9_]*)(?:\s+version\s+([1-9][0-9]*))?(?:\s+owner\s+([A-Za-z][-A-Za-z0-9_]*(?:\/[A-Za-z][-A-Za-z0-9_]*)?))?/;

export interface TemplateOrigin {
  name: string;
  version?: number;
  owner?: string;
}

export function originComment(name: string, version?: number, owner?: string): string {
  const which = `${name}${version !== undefined ? ` version ${version}` : ''}${owner !== undefined ? ` owner ${owner}` : ''}`;
  return `# workflow: ${which} (this line tells 'gdflow batch' which workflow to run)\n`;
}

/** The workflow a template's first line names, if it does. */
export function templateOrigin(text: string): TemplateOrigin | undefined {
  const match = ORIGIN.exec(text.replace(/^\uFEFF/, ''));
  if (!match) return undefined;
  return { name: match[1]!, ...(match[2] !== undefined ? { version: Number(match[2]) } : {}), ...(match[3] !== undefined ? { owner: match[3] } : {}) };
}

/**
 * The version and owner of the workflow a run starts: the command line's, else the document's (an ActivateWorkflow
 * body), else those the template's first line names when it names this workflow.
 */
export function runTarget(
  workflow: string,
  given: { version?: number | undefined; owner?: string | undefined },
  document: { workflow_version?: number; workflow_owner?: string },
  origin: TemplateOrigin | undefined,
): { version?: number; owner?: string } {
  const fromOrigin = origin?.name === workflow ? origin : undefined;
  const version = given.version ?? document.workflow_version ?? fromOrigin?.version;
  const owner = given.owner ?? document.workflow_owner ?? fromOrigin?.owner;
  return { ...(version !== undefined ? { version } : {}), ...(owner !== undefined ? { owner } : {}) };
}
