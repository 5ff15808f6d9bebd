import type { Project, Store, Tool, Workflow as StoredWorkflow } from '../../../store/store.js';
import { DEFAULT_PROJECT, openProject, visibilityFor } from '../../access.js';
import { actorOf, audited } from '../../audit.js';
import { invalid, Unsupported } from '../../errors.js';
import type { ImportCwlBody } from '../../../contract/cwl.js';
import { isObject, type JsonObject } from '../../json.js';
import { checkName } from '../../names.js';
import type { Scope } from '../../tools/service.js';
import { loadDocument } from '../document/load.js';
import { packDocument } from '../document/pack.js';
import { InMemoryDocumentSource } from '../document/source.js';
import { CwlValidationError } from '../errors.js';
import type { CwlProcess } from '../model.js';
import { CWL_DOCUMENT_URI } from '../runs/plan.js';
import { processFragment } from '../runs/service.js';
import { unsupportedFeature } from '../runs/unsupported.js';
import { splitFragment } from '../uri.js';
import { nameFor } from './names.js';
import type { CwlSource } from './source.js';
import { CWL_CATEGORY, processDescription, toolView, workflowView } from './views.js';
import { stringifyExactJson } from '../../../contract/exact-json.js';

/**
 * ImportCwl (`POST cwl/import/`, `gdflow cwl import`; docs/cwl.md, "Import"): a packed CWL document becomes versions
 * of tools and workflows. The process asked for (its `#main` by default) and every process of the document it runs
 * (its `$graph` entries, at any depth) are imported: each CommandLineTool and ExpressionTool as a tool version, each
 * Workflow as a workflow version; processes written inside a workflow's steps are part of that workflow. Each version
 * keeps its CWL document (the posted one for the process asked for; for the others, the entry made a document of its
 * own, with what it runs) and shows GeneDock a view of it (views.ts). A name whose latest version holds the same
 * document is not imported again. Everything is written in one transaction: an import is whole or not at all.
 */

export interface ImportedVersion {
  /** The id of the process in the posted document. */
  process: string;
  kind: 'tool' | 'workflow';
  name: string;
  version: number;
  /** False when the name's latest version held this document already (nothing was written for it). */
  created: boolean;
}

interface Planned {
  process: CwlProcess;
  kind: 'tool' | 'workflow';
  name: string;
  source: CwlSource;
}

export class CwlImportService {
  constructor(private readonly store: Store) {}

  /**
   * ImportCwl, with the body as its schema let it through (contract/cwl.ts): what is checked here is what a schema
   * cannot say (the document is CWL gdflow can run, the process is in it, the names fit the rule).
   */
  async import(scope: Scope, body: ImportCwlBody): Promise<{ imported: ImportedVersion[] }> {
    const fragment = processFragment(body.process);
    const given = body.name === undefined || body.name === '' ? undefined : checkName('tool_name', body.name);
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const document = withProcessId(body.document);
    const source = new InMemoryDocumentSource({ [CWL_DOCUMENT_URI]: stringifyExactJson(document) });
    const main = await load(`${CWL_DOCUMENT_URI}${fragment}`, source);
    const found = unsupportedFeature(main);
    if (found !== undefined) throw new Unsupported(found);

    const planned: Planned[] = [];
    for (const process of importedProcesses(main)) {
      const isMain = process === main;
      const kind = process.class === 'Workflow' ? 'workflow' : 'tool';
      const name = isMain && given !== undefined ? given : nameFor(process.id);
      // The posted document is kept whole when the process is the one it runs by default; any other is made its own.
      const own =
        isMain && (fragment === '' || fragment === '#main' || !('$graph' in document))
          ? { document, process: fragment || '#main' }
          : await standalone(process, source);
      planned.push({ process, kind, name, source: own });
    }
    const names = planned.map((p) => `${p.kind} ${p.name}`);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) throw invalid(`two processes of the document would both be imported as ${twice}: give the main process another name`);

    return this.store.transaction(async (store) => {
      const imported: ImportedVersion[] = [];
      const appIds = new Map<CwlProcess, string>();
      // Tools first, then workflows inner ones first: a workflow's view names the versions of what it runs.
      for (const item of [...planned.filter((p) => p.kind === 'tool'), ...planned.filter((p) => p.kind === 'workflow').reverse()]) {
        const version = await this.importOne(store, scope, project, item, (p) => appIds.get(p));
        appIds.set(item.process, appId(project, item.name, version.version));
        imported.push(version);
      }
      return { imported };
    });
  }

  private async importOne(
    store: Store,
    scope: Scope,
    project: Project,
    item: Planned,
    appIdOf: (p: CwlProcess) => string | undefined,
  ): Promise<ImportedVersion> {
    const { process, kind, name, source } = item;
    const base = { process: `#${splitFragment(process.id)[1] ?? 'main'}`, kind, name };
    const description = processDescription(process);
    const visibility = visibilityFor(project.accountName);
    const target = `${project.accountName}/${project.name}/${name}`;
    const audit = (operation: string, version?: number) =>
      audited(actorOf(scope.caller), operation, project.accountName, version === undefined ? target : `${target}:${version}`);
    if (kind === 'tool') {
      const latest = (await store.getToolVersions(project.id, name)).at(-1);
      if (latest && sameSource(latest, source)) return { ...base, version: latest.version, created: false };
      const created = await store.createTool({ projectId: project.id, name, description, visibility }, audit('ImportCwl'));
      const configs = toolView(process as Parameters<typeof toolView>[0], name);
      await store.putTool(
        created.id,
        { description, configs, category: CWL_CATEGORY, status: 'checked', cwl: { ...source } },
        {},
        audit('ImportCwl', created.version),
      );
      return { ...base, version: created.version, created: true };
    }
    const latest = (await store.getWorkflowVersions(project.id, name)).at(-1);
    if (latest && sameSource(latest, source)) return { ...base, version: latest.version, created: false };
    const created = await store.createWorkflow({ projectId: project.id, name, description, visibility }, audit('ImportCwl'));
    const configs = workflowView(process as Parameters<typeof workflowView>[0], appIdOf);
    // The tool versions a workflow's steps run are pinned, as PutWorkflow pins them: they cannot be deleted under it.
    const toolIds = await pinned(store, project, configs);
    await store.putWorkflow(created.id, { description, configs, status: 'checked', toolIds, cwl: { ...source } }, audit('ImportCwl', created.version));
    return { ...base, version: created.version, created: true };
  }
}

/**
 * A posted document of one process without an `id` (as most hand-written documents are: cwltool names their process
 * after the file) gets `#main`, as packing gives it (`gdflow cwl import`, `cwltool --pack`): the version must name the
 * process it stands for, and a document without ids has no `#main` to run. Its inputs' and steps' ids, written
 * relative, are scoped under it; references keep resolving as before.
 */
function withProcessId(document: JsonObject): JsonObject {
  if ('$graph' in document || typeof document.id === 'string') return document;
  const { cwlVersion, ...rest } = document;
  return { cwlVersion, id: '#main', ...rest };
}

async function load(uri: string, source: InMemoryDocumentSource): Promise<CwlProcess> {
  try {
    return (await loadDocument(uri, source)).process;
  } catch (error) {
    if (error instanceof CwlValidationError && error.unsupportedFeatures.length > 0) throw new Unsupported(error.message);
    throw error;
  }
}

/** The process and the top-level processes of the document it runs (not those written inside a step), each once. */
function importedProcesses(main: CwlProcess): CwlProcess[] {
  const found: CwlProcess[] = [];
  const visit = (process: CwlProcess, top: boolean): void => {
    if (top && process.class !== 'Operation' && !found.includes(process)) found.push(process);
    if (process.class !== 'Workflow') return;
    for (const step of process.steps) {
      const fragment = splitFragment(step.run.id)[1];
      visit(step.run, fragment !== undefined && !fragment.includes('/'));
    }
  };
  visit(main, true);
  return found;
}

/** A `$graph` entry as a document of its own: itself as `#main`, with the processes it runs. */
async function standalone(process: CwlProcess, source: InMemoryDocumentSource): Promise<CwlSource> {
  const packed = packDocument(await loadDocument(process.id, source), { asMain: true });
  return { document: packed.document, process: packed.process };
}

const sameSource = (version: Tool | StoredWorkflow, source: CwlSource): boolean => stringifyExactJson(version.cwl) === stringifyExactJson(source);

const appId = (project: Project, name: string, version: number): string =>
  project.name === DEFAULT_PROJECT ? `/${project.accountName}/${name}/${version}` : `/${project.accountName}/${project.name}/${name}/${version}`;

/** The ids of the tool versions a workflow view's nodes name (those imported with it, or before). */
async function pinned(store: Store, project: Project, configs: JsonObject): Promise<string[]> {
  const ids: string[] = [];
  for (const node of Array.isArray(configs.nodelist) ? configs.nodelist.filter(isObject) : []) {
    const parts = String(node.app_id).split('/');
    if (parts[0] !== '' || parts.length < 4) continue;
    const tool = await store.getTool(project.id, parts.at(-2)!, Number(parts.at(-1)));
    if (tool) ids.push(tool.id);
  }
  return ids;
}
