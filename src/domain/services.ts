import type { Store } from '../store/store.js';
import { AccountService } from './accounts.js';
import type { CwlDataLocations } from './cwl/runs/locations.js';
import { ImportedCwlRuns } from './cwl/imports/activation.js';
import { CwlImportService } from './cwl/imports/service.js';
import { cwlPlanOf } from './cwl/runs/plan.js';
import { CwlRunService } from './cwl/runs/service.js';
import type { DataService } from './data/service.js';
import { CachedRerun, type CacheFiles } from './tasks/cached-rerun.js';
import { TaskService, type LogLinks, type OtherRerun, type TaskFiles } from './tasks/service.js';
import type { DataCatalog } from './tasks/activation.js';
import { TokenService } from './tokens.js';
import type { TesStagingPolicy } from './tes/locations.js';
import type { RemoteDocuments } from './wes/documents.js';
import { TesService } from './tes/service.js';
import type { TesFiles } from './tes/views.js';
import { ToolService } from './tools/service.js';
import { WesService } from './wes/service.js';
import { WorkflowService } from './workflows/service.js';
import { WdlRunService } from './wdl/runs/service.js';
import { checkWdlDocument } from './wdl/workflows/checker.js';
import { WdlWorkflowService } from './wdl/workflows/service.js';
import { WdlTaskService } from './wdl/workflows/tasks.js';
import type { WdlFileLinks } from './wdl/workflows/views.js';

/** The services that need only the store (what `gdflow admin` uses). */
export interface CoreServices {
  store: Store;
  accounts: AccountService;
  tokens: TokenService;
  tools: ToolService;
  workflows: WorkflowService;
  cwlImports: CwlImportService;
}

/** Everything the server runs: the core services plus tasks and data, which need the engine. */
export interface Services extends CoreServices {
  tasks: TaskService;
  data: DataService;
  cwlRuns: CwlRunService;
  /** WDL runs (docs/wdl.md): what the `wdl/tasks/` routes start. */
  wdlRuns: WdlRunService;
  tes: TesService;
  wes: WesService;
  /** WDL workflows and tools (docs/wdl.md): what the `wdl/workflow/` and `wdl/tools/` routes keep. */
  wdlWorkflows: WdlWorkflowService;
  /** The `wdl/tasks/` routes: stored WDL versions run, listed by the task they were restarted from, restarted. */
  wdlTasks: WdlTaskService;
}

/** `locations`: the data store, from which an export writes an imported document's InitialWorkDir files as literals. */
export function createCoreServices(store: Store, locations?: CwlDataLocations): CoreServices {
  return {
    store,
    accounts: new AccountService(store),
    tokens: new TokenService(store),
    tools: new ToolService(store, locations),
    workflows: new WorkflowService(store, locations),
    cwlImports: new CwlImportService(store),
  };
}

export interface Runtime {
  files: TaskFiles;
  data: DataService;
  catalog: DataCatalog;
  logs: LogLinks;
  /** The data store's locations as CWL runs write them (gdflow:<path>). */
  locations: CwlDataLocations;
  /** What TES views read of a task's files, and what its inputs may reach (docs/ga4gh.md). */
  tes: { files: TesFiles; policy: TesStagingPolicy };
  /** What WES fetches an http(s) workflow_url through (the operator's --fetch-hosts). */
  remote: RemoteDocuments;
  /** The signed links of WDL documents (their `source` and `dependencies`). */
  wdlFiles: WdlFileLinks;
  /**
   * The call cache at activation (tasks/cached-rerun.ts): the task files it reads and places, and whether the server
   * reuses jobs (`--call-caching`). Absent: jobs are looked up by the worker only (an executor whose jobs' keys hold an
   * image digest, which only it resolves).
   */
  cache?: { files: CacheFiles; enabled: boolean; cleanupIntermediates?: boolean };
}

export function createServices(store: Store, runtime: Runtime): Services {
  const core = createCoreServices(store, runtime.locations);
  const cwlRuns = new CwlRunService(store, runtime.locations);
  const importedRuns = new ImportedCwlRuns(core.workflows, cwlRuns);
  const rerunCwl: OtherRerun = (scope, task, nameOf) => (cwlPlanOf(task.plan) === undefined ? undefined : cwlRuns.rerun(scope, task, nameOf));
  const cachedRerun = runtime.cache
    ? new CachedRerun(store, runtime.catalog, runtime.cache.files, runtime.cache.enabled, runtime.cache.cleanupIntermediates)
    : undefined;
  const tasks = new TaskService(store, core.workflows, runtime.catalog, runtime.files, runtime.logs, { rerun: rerunCwl, imported: importedRuns }, cachedRerun);
  const wdlRuns = new WdlRunService(store, runtime.locations);
  const wdlWorkflows = new WdlWorkflowService(store, checkWdlDocument, runtime.wdlFiles);
  return {
    ...core,
    data: runtime.data,
    tasks,
    cwlRuns,
    wdlRuns,
    tes: new TesService(store, tasks, runtime.tes.files, runtime.tes.policy),
    wes: new WesService(store, tasks, cwlRuns, runtime.data, runtime.locations, runtime.logs, runtime.remote),
    wdlWorkflows,
    wdlTasks: new WdlTaskService(store, wdlWorkflows, wdlRuns),
  };
}
