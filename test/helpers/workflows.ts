import assert from 'node:assert/strict';
import type { TestAccount } from './server.js';
import { projectPath } from './server.js';

/** Tools and workflows for workflow tests: a trim → align → stats pipeline with a fan-out. */

const requirements = { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '256m', disk: '256m', network: false } };

export const TOOLS: Record<string, Record<string, unknown>> = {
  trim: {
    cmd_template: 'cp {{ inputs.reads[0].path }} {{ outputs.trimmed[0].path }} # q={{ parameters.quality }}',
    inputs: { reads: { type: 'file', formats: ['fastq', 'fq'], required: true, minitems: 1, maxitems: 1 } },
    outputs: { trimmed: { type: 'file', formats: 'fastq', required: true } },
    parameters: { quality: { type: 'integer', default: 20, minvalue: 0, maxvalue: 60, required: true, hint: 'minimum base quality' } },
    requirements,
  },
  align: {
    cmd_template: 'cat {{ inputs.reference[0].path }} {{ inputs.reads[0].path }} > {{ outputs.bam[0].path }} # t={{ parameters.threads }} {{ parameters.rg }}',
    inputs: {
      reads: { type: 'file', formats: ['fastq'], required: true, minitems: 1, maxitems: 2 },
      reference: { type: 'file', formats: ['fasta', 'fa'], required: true, minitems: 1, maxitems: 1 },
    },
    outputs: { bam: { type: 'file', formats: 'bam', required: true } },
    parameters: { threads: { type: 'integer', default: 1, minvalue: 1, maxvalue: 8 }, rg: { type: 'string', default: 'sample' } },
    requirements,
  },
  stats: {
    cmd_template: 'wc -c {{ inputs.bam[0].path }} > {{ outputs.report[0].path }}',
    inputs: { bam: { type: 'file', formats: ['bam'], required: true } },
    outputs: { report: { type: 'file', formats: 'txt', required: true } },
    parameters: {},
    requirements,
  },
};

export async function registerTool(account: TestAccount, name: string, definition: Record<string, unknown>, project = 'default'): Promise<number> {
  await account.api.send('POST', projectPath(account.name, 'tools/', project), { json: { tool_name: name, description: `${name} tool` } });
  const got = await account.api.json<any>('GET', projectPath(account.name, `tools/${name}/`, project));
  const version = got.tools[got.tools.length - 1].configs.version as number;
  await account.api.send('PUT', projectPath(account.name, `tools/${name}/`, project), { json: { tool_version: version, configs: { name, ...definition } } });
  return version;
}

export async function toolId(account: TestAccount, name: string, version: number): Promise<string> {
  const got = await account.api.json<any>('GET', projectPath(account.name, `tools/${name}/`), { query: { tool_version: version } });
  return got.tools[0].configs._id as string;
}

const load = (id: string, enid: string, alias = id) => ({
  node_id: id,
  app_id: '55128c58f6f4067d63b956b5',
  name: 'loaddata',
  alias,
  inputs: null,
  outputs: { data: { enid } },
  parameters: null,
});
const store = (id: string, enid: string, name = ' ') => ({
  node_id: id,
  app_id: '55128c94f6f4067d63b956b6',
  name: 'storedata',
  alias: `store ${enid}`,
  inputs: { data: { enid } },
  outputs: null,
  parameters: { name: { value: name, variable: false }, description: { value: ' ', variable: false } },
});

/** load reads → trim → align (← load ref) → stats → store; align.bam and trim.trimmed are stored too. */
export function pipelineConfigs(ids: { trim: string; align: string; stats: string }) {
  return {
    nodelist: [
      load('load_reads', 'reads_link', 'input reads'),
      load('load_ref', 'ref_link', 'reference'),
      {
        node_id: 'trim_node',
        app_id: ids.trim,
        name: 'trim',
        alias: 'trim reads',
        inputs: { reads: [{ enid: 'reads_link' }] },
        outputs: { trimmed: [{ enid: 'trimmed_link' }] },
        parameters: { quality: { value: 25, variable: true } },
      },
      {
        node_id: 'align_node',
        app_id: ids.align,
        name: 'align',
        alias: 'align',
        inputs: { reads: [{ enid: 'trimmed_link' }], reference: [{ enid: 'ref_link' }] },
        outputs: { bam: [{ enid: 'bam_link' }] },
        parameters: { threads: { value: 2, variable: true } },
      },
      {
        node_id: 'stats_node',
        app_id: ids.stats,
        name: 'stats',
        alias: 'stats',
        inputs: { bam: [{ enid: 'bam_link' }] },
        outputs: { report: [{ enid: 'report_link' }] },
        parameters: {},
      },
      store('store_bam', 'bam_link'),
      store('store_report', 'report_link', '/results/report.txt'),
    ],
  };
}

export async function registerPipeline(account: TestAccount): Promise<{ trim: string; align: string; stats: string }> {
  for (const [name, def] of Object.entries(TOOLS)) await registerTool(account, name, def);
  return { trim: await toolId(account, 'trim', 1), align: await toolId(account, 'align', 1), stats: await toolId(account, 'stats', 1) };
}

export async function createWorkflow(account: TestAccount, name: string, configs: unknown, project = 'default') {
  await account.api.send('POST', projectPath(account.name, 'workflows/', project), { json: { workflow_name: name, description: `${name} workflow` } });
  const got = await account.api.json<any>('GET', projectPath(account.name, `workflows/${name}/`, project));
  const version = got.workflows[got.workflows.length - 1].version as number;
  return account.api.send('PUT', projectPath(account.name, `workflows/${name}/`, project), { json: { workflow_version: version, configs } });
}

/** The parameter template of a workflow (version 1), to fill in and activate. */
export async function template(account: TestAccount, workflow: string) {
  const { parameter } = await account.api.json<any>('GET', projectPath(account.name, `executable-workflows/${workflow}/`), { query: { workflow_version: 1 } });
  return parameter;
}

/** A one-tool workflow: load → tool → store, the tool given by its definition. */
export async function singleToolWorkflow(account: TestAccount, name: string, definition: Record<string, unknown>, parameters: Record<string, unknown> = {}) {
  await registerTool(account, `${name}_tool`, definition);
  const app = await toolId(account, `${name}_tool`, 1);
  const inputs = Object.keys((definition.inputs as object) ?? {});
  const configs = {
    nodelist: [
      ...(inputs.length ? [{ node_id: 'load', app_id: 'loaddata', name: 'loaddata', outputs: { data: { enid: 'in' } } }] : []),
      { node_id: 'work', app_id: app, inputs: inputs.length ? { [inputs[0]!]: [{ enid: 'in' }] } : {}, outputs: { out: [{ enid: 'result' }] }, parameters },
      { node_id: 'save', app_id: 'storedata', name: 'storedata', inputs: { data: { enid: 'result' } } },
    ],
  };
  const put = await createWorkflow(account, name, configs);
  assert.equal(put.status, 200);
}
