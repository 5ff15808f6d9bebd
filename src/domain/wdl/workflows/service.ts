/**
 * WDL workflows and tools behind the `wdl/workflow/` and `wdl/tools/` routes (docs/wire.md §8, docs/wdl.md): created
 * and updated from multipart forms, each version keeping its document as uploaded and the input template read from it
 * when it was checked; a document that does not parse or type-check is refused with its file, line and column.
 */
import { AlreadyExists, VersionConflict, type Store } from '../../../store/store.js';
import type { WdlContent, WdlKind, WdlVersion, WdlVersionFiles } from '../../../store/wdl.js';
import { openProject } from '../../access.js';
import { actorOf, audited } from '../../audit.js';
import { invalid, notFound } from '../../errors.js';
import { checkName } from '../../names.js';
import type { Scope } from '../../tools/service.js';
import {
  booleanField,
  expectForm,
  fileField,
  keptFileName,
  MAX_DEPENDENCIES_BYTES,
  MAX_SOURCE_BYTES,
  textField,
  utf8Text,
  versionField,
  type FormFile,
} from './form.js';
import { groupedSummaries, wdlDetail, wdlSummary, type WdlFileLinks } from './views.js';
import { unpackDependencies } from './zip.js';

/** A WDL document as the language reads it: the main file and the files of its dependencies zip. */
export interface WdlDocument {
  main: string;
  mainName: string;
  files?: Record<string, string>;
}

/**
 * Parses and type-checks a document with its imports and gives its input template (the language's entry points,
 * domain/wdl/index.ts); throws the domain's `invalid` naming file, line and column. A tool's template is its task's.
 */
export type WdlChecker = (document: WdlDocument, kind: WdlKind) => { inputs: Record<string, unknown> };

const FIELDS = {
  workflow: "fields 'name', 'description' and files 'source' and (optional) 'dependencies'",
  tool: "fields 'name', 'description' and files 'source' and (optional) 'dependencies'",
};
const NOUN: Record<WdlKind, string> = { workflow: 'WDL workflow', tool: 'WDL tool' };
const OPERATION: Record<WdlKind, { create: string; update: string; delete: string }> = {
  workflow: { create: 'CreateWdlWorkflow', update: 'UpdateWdlWorkflow', delete: 'DeleteWdlWorkflow' },
  tool: { create: 'CreateWdlTool', update: 'UpdateWdlTool', delete: 'DeleteWdlTool' },
};

/** The document of stored files, as the language reads it. */
export function documentOf(files: { sourceName: string; source: string; dependenciesName: string | null; dependencies: Buffer | null }): WdlDocument {
  return {
    main: files.source,
    mainName: files.sourceName,
    ...(files.dependencies === null ? {} : { files: unpackDependencies(files.dependencies, files.dependenciesName ?? 'dependencies.zip') }),
  };
}

export class WdlWorkflowService {
  constructor(
    private readonly store: Store,
    readonly check: WdlChecker,
    private readonly links: WdlFileLinks,
  ) {}

  /** POST wdl/workflow/ (wdl/tools/): a new workflow, version 1. */
  async create(scope: Scope, kind: WdlKind, body: unknown): Promise<Record<string, unknown>> {
    const form = expectForm(body, FIELDS[kind]);
    const name = checkName('name', textField(form, 'name', 200));
    const description = textField(form, 'description', 65_536) ?? '';
    const source = fileField(form, 'source', MAX_SOURCE_BYTES);
    if (!source) throw invalid("source is required: the workflow's .wdl file as a file part");
    const content = this.checked(kind, description, source, fileField(form, 'dependencies', MAX_DEPENDENCIES_BYTES) ?? null);
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const audit = audited(actorOf(scope.caller), OPERATION[kind].create, project.accountName, `${project.accountName}/${project.name}/wdl/${name}`);
    try {
      const created = await this.store.wdl.createWdlWorkflow(project.id, kind, name, content, audit);
      return wdlSummary(created);
    } catch (error) {
      if (error instanceof AlreadyExists)
        throw invalid(`name '${name}' is already used by a ${NOUN[kind]} of project '${project.name}'; update it (PUT with override) to add a version`);
      throw error;
    }
  }

  /**
   * PUT wdl/workflow/<id>/: `override` True replaces version `workflow_version`; False (the default) adds a version
   * (`new_version`, or the next free one) made from `workflow_version` (default: the latest) with what the form
   * changes. `name` renames the workflow. Every part is written in one transaction, or none.
   */
  async update(scope: Scope, kind: WdlKind, id: string, body: unknown): Promise<Record<string, unknown>> {
    const form = expectForm(body, `field 'workflow_version' and the fields and files to change`);
    const versionName = kind === 'tool' ? 'tool_version' : 'workflow_version';
    const asked = versionField(form, versionName) ?? versionField(form, kind === 'tool' ? 'workflow_version' : 'tool_version');
    const override = booleanField(form, 'override') ?? false;
    const newVersion = versionField(form, 'new_version');
    const rawName = textField(form, 'name', 200);
    const name = rawName === undefined || rawName === '' ? undefined : checkName('name', rawName);
    const description = textField(form, 'description', 65_536);
    const source = fileField(form, 'source', MAX_SOURCE_BYTES);
    const dependencies = fileField(form, 'dependencies', MAX_DEPENDENCIES_BYTES);
    if (override && newVersion !== undefined && asked !== undefined && newVersion !== asked) {
      throw invalid(`new_version ${newVersion} names a new version, but override is True (replace version ${asked}); send override False to add a version`);
    }

    const { project, versions } = await this.versionsOf(scope, kind, id, 'write');
    const baseNumber = asked ?? versions[versions.length - 1]!.version;
    const base = versions.find((v) => v.version === baseNumber);
    if (!base) throw notFound(`${NOUN[kind]} '${versions[0]!.name}' has no version ${baseNumber} (${versionName})`);
    const files = (await this.store.wdl.wdlVersionFiles(base.versionId))!;
    const content = this.checked(
      kind,
      description ?? base.description,
      source ?? { filename: files.sourceName, data: Buffer.from(files.source, 'utf8') },
      dependencies === undefined ? storedDependencies(files) : dependencies.data.length === 0 ? null : dependencies,
    );
    const audit = audited(
      actorOf(scope.caller),
      OPERATION[kind].update,
      project.accountName,
      `${project.accountName}/${project.name}/wdl/${name ?? base.name}`,
    );
    try {
      const changed = await this.store.wdl.changeWdlWorkflow(
        base.workflowId,
        {
          ...(name !== undefined && name !== base.name ? { name } : {}),
          ...(override ? { replace: { version: base.version, content } } : { add: { version: newVersion ?? 'next', content } }),
        },
        audit,
      );
      if (!changed) throw notFound(`${NOUN[kind]} '${id.slice(0, 64)}' version ${base.version} no longer exists`);
      return wdlSummary(changed);
    } catch (error) {
      if (error instanceof VersionConflict) throw invalid(`new_version ${newVersion} exists already; the next free version is ${error.nextVersion}`);
      if (error instanceof AlreadyExists) throw invalid(`name '${name}' is already used by another ${NOUN[kind]} of project '${project.name}'`);
      throw error;
    }
  }

  /** GET wdl/workflow/ with no name: every workflow, a list of lists; with `name` (and `version`): that one's versions, a flat list. */
  async lookUp(scope: Scope, kind: WdlKind, query: { name?: string | undefined; version?: number | undefined }): Promise<unknown[]> {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'read');
    if (query.name === undefined || query.name === '') {
      if (query.version !== undefined) throw invalid('version needs name: the version of which workflow');
      return groupedSummaries(await this.store.wdl.listWdlVersions(project.id, kind));
    }
    const versions = await this.store.wdl.wdlVersionsByName(project.id, kind, query.name);
    return versions.filter((v) => query.version === undefined || v.version === query.version).map(wdlSummary);
  }

  /** The versions of a workflow by its id (all, or `version`), with links and input template; [] when there is none such. */
  async get(scope: Scope, kind: WdlKind, id: string, version: number | undefined) {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'read');
    const versions = /^[0-9a-f]{24}$/.test(id) ? await this.store.wdl.wdlVersions(id) : [];
    const mine = versions.filter((v) => v.projectId === project.id && v.kind === kind && (version === undefined || v.version === version));
    return Promise.all(mine.map((v) => wdlDetail(v, this.links, scope.baseUrl)));
  }

  /** The versions of a tool by its name (all, or `version`), as GetTool answers: `{tools: [...]}`. */
  async getByName(scope: Scope, kind: WdlKind, name: string, version: number | undefined) {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'read');
    const versions = (await this.store.wdl.wdlVersionsByName(project.id, kind, name)).filter((v) => version === undefined || v.version === version);
    if (versions.length === 0)
      throw notFound(`${NOUN[kind]} '${name.slice(0, 128)}'${version === undefined ? '' : ` version ${version}`} does not exist in project '${project.name}'`);
    return Promise.all(versions.map((v) => wdlDetail(v, this.links, scope.baseUrl)));
  }

  /** DELETE wdl/workflow/<id>/?workflow_version=N (the workflow goes with its last version). */
  async delete(scope: Scope, kind: WdlKind, id: string, version: number): Promise<void> {
    const { project, versions } = await this.versionsOf(scope, kind, id, 'write');
    const target = versions.find((v) => v.version === version);
    if (!target) throw notFound(`${NOUN[kind]} '${versions[0]!.name}' has no version ${version}`);
    await this.deleteVersion(scope, project.accountName, project.name, kind, target);
  }

  /** The id of the tool `name` of the caller's project (PUT wdl/tools/<name>/), or a 404. */
  async toolId(scope: Scope, name: string): Promise<string> {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const versions = await this.store.wdl.wdlVersionsByName(project.id, 'tool', name);
    if (versions.length === 0) throw notFound(`${NOUN.tool} '${name.slice(0, 128)}' does not exist in project '${project.name}'`);
    return versions[0]!.workflowId;
  }

  /** DELETE wdl/tools/<name>/?tool_version=N. */
  async deleteByName(scope: Scope, kind: WdlKind, name: string, version: number): Promise<void> {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, 'write');
    const target = (await this.store.wdl.wdlVersionsByName(project.id, kind, name)).find((v) => v.version === version);
    if (!target) throw notFound(`${NOUN[kind]} '${name.slice(0, 128)}' version ${version} does not exist in project '${project.name}'`);
    await this.deleteVersion(scope, project.accountName, project.name, kind, target);
  }

  /** A version with its files, for a task of it: the caller's project's. */
  async versionFiles(scope: Scope, kind: WdlKind, id: string, version: number): Promise<WdlVersionFiles> {
    const { versions } = await this.versionsOf(scope, kind, id, 'write');
    const target = versions.find((v) => v.version === version);
    const files = target && (await this.store.wdl.wdlVersionFiles(target.versionId));
    if (!files) throw notFound(`${NOUN[kind]} '${versions[0]!.name}' has no version ${version} (workflow_version)`);
    return files;
  }

  private async deleteVersion(scope: Scope, account: string, projectName: string, kind: WdlKind, target: WdlVersion): Promise<void> {
    const audit = audited(actorOf(scope.caller), OPERATION[kind].delete, account, `${account}/${projectName}/wdl/${target.name}:${target.version}`);
    // Gone meanwhile (a concurrent DELETE): the answer is the same.
    if (!(await this.store.wdl.deleteWdlVersion(target.workflowId, target.version, audit))) {
      throw notFound(`${NOUN[kind]} '${target.name}' has no version ${target.version}`);
    }
  }

  /** The versions of the workflow `id` of the caller's project, or a 404. */
  private async versionsOf(scope: Scope, kind: WdlKind, id: string, mode: 'read' | 'write') {
    const { project } = await openProject(this.store, scope.caller, scope.account, scope.project, mode);
    const versions = /^[0-9a-f]{24}$/.test(id) ? await this.store.wdl.wdlVersions(id) : [];
    if (versions.length === 0 || versions[0]!.projectId !== project.id || versions[0]!.kind !== kind) {
      throw notFound(`${NOUN[kind]} '${id.slice(0, 64)}' does not exist in project '${project.name}'`);
    }
    return { project, versions };
  }

  /** A version's content from the form's files, checked by the language (which gives the input template). */
  private checked(kind: WdlKind, description: string, source: FormFile, dependencies: FormFile | null): WdlContent {
    const sourceName = keptFileName(source.filename, kind === 'tool' ? 'tool.wdl' : 'source.wdl');
    const text = utf8Text(source, 'source');
    const files = dependencies === null ? undefined : unpackDependencies(dependencies.data, keptFileName(dependencies.filename, 'dependencies.zip'));
    const { inputs } = this.check({ main: text, mainName: sourceName, ...(files ? { files } : {}) }, kind);
    return {
      description,
      sourceName,
      source: text,
      dependenciesName: dependencies === null ? null : keptFileName(dependencies.filename, 'dependencies.zip'),
      dependencies: dependencies === null ? null : dependencies.data,
      inputs,
    };
  }
}

/** A stored version's zip as a form file, to carry over to a version made from it. */
function storedDependencies(files: WdlVersionFiles): FormFile | null {
  return files.dependencies === null ? null : { filename: files.dependenciesName ?? 'dependencies.zip', data: files.dependencies };
}
