import type { Command } from 'commander';
import { registerWorkflowCreate, registerWorkflowUpdate } from './create.js';
import { registerWorkflowDelete } from './delete.js';
import { registerWorkflowGet } from './get.js';
import { registerWorkflowGetparam } from './getparam.js';
import { registerWorkflowGraph } from './graph.js';
import { registerWorkflowLs } from './ls.js';
import { registerWorkflowRun } from './run.js';
import { registerWorkflowSetparam } from './setparam.js';

/** `gdflow workflow ...`: workflows (INTERFACE.md 4.8–4.15). */
export function registerWorkflow(program: Command): void {
  const workflow = program
    .command('workflow')
    .description('manage and run workflows: versioned graphs of tools (documents in the workflow: form)')
    .addHelpText(
      'after',
      `
A workflow document is YAML or JSON with the graph under 'workflow:' (see 'gdflow workflow get NAME'):
  workflow:
    name: qc
    nodelist:
      - {node_id: load_reads, app_id: loaddata, outputs: {data: {enid: reads}}}
      - {node_id: qc, app_id: /myaccount/fastqc/1, inputs: {reads: [{enid: reads}]}, outputs: {report: [{enid: report}]}}
      - {node_id: save, app_id: storedata, inputs: {data: {enid: report}}}

Running it:
  gdflow workflow getparam qc > params.yml     # the run-parameter template; fill in the inputs
  gdflow workflow run qc -p params.yml --wait
  gdflow workflow run qc --input load_reads=/reads/s1.fq --param qc.threads=2 --wait   # no file needed

Public workflows (the 'public' account's) are listed after your own; read and run them with
--owner public (your own key is enough):
  gdflow workflow run qc --owner public --input load_reads=/reads/s1.fq --wait`,
    );
  registerWorkflowLs(workflow);
  registerWorkflowGet(workflow);
  registerWorkflowCreate(workflow);
  registerWorkflowUpdate(workflow);
  registerWorkflowDelete(workflow);
  registerWorkflowGetparam(workflow);
  registerWorkflowSetparam(workflow);
  registerWorkflowGraph(workflow);
  registerWorkflowRun(workflow);
}
