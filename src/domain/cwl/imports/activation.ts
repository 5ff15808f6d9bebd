import type { Workflow } from '../../../store/store.js';
import { invalid } from '../../errors.js';
import type { JsonObject } from '../../json.js';
import type { ImportedWorkflowRuns } from '../../tasks/service.js';
import type { Scope } from '../../tools/service.js';
import type { WorkflowService } from '../../workflows/service.js';
import type { CwlRunService } from '../runs/service.js';
import { cwlJobFromTemplate } from './run-template.js';
import { cwlSourceOf } from './source.js';

/**
 * ActivateWorkflow of a workflow imported from CWL (docs/cwl.md, "Import"): its run template, as the caller filled it,
 * becomes a CWL job object (run-template.ts) and the workflow's CWL document runs with it, a CWL run like those of
 * `gdflow cwl run` (its outputs under /cwl/runs/<task id>/ of the data store), named after the workflow version.
 */
export class ImportedCwlRuns implements ImportedWorkflowRuns {
  constructor(
    private readonly workflows: WorkflowService,
    private readonly runs: CwlRunService,
  ) {}

  async activate(
    scope: Scope,
    workflow: Workflow,
    request: { parameters: JsonObject; taskName: string | null | undefined },
  ): Promise<{ task_id: string; task_name: string }> {
    const source = cwlSourceOf(workflow.cwl);
    const process = await this.workflows.cwlProcess(workflow);
    if (!source || !process) throw invalid(`workflow '${workflow.name}' version ${workflow.version} keeps no CWL document`);
    const job = cwlJobFromTemplate(process, await this.workflows.template(workflow), request.parameters, scope.caller.accountName);
    const name = request.taskName;
    const run = { document: source.document, process: source.process, job, ...(name !== undefined && name !== null ? { name } : {}) };
    return this.runs.start(scope, run, { id: workflow.id, name: workflow.name, version: workflow.version });
  }
}
