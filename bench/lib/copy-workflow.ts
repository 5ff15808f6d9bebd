import type { Client } from '../../src/client/client.js';

/**
 * The workflow the benchmarks that queue many tasks activate: load a FASTQ → copy it (a tool `<prefix>copy`) → store
 * it, as `<prefix>wf`, with its input stored at `/<prefix>/in.fastq`. `account` is the caller's (the tool's app_id).
 */
export async function copyWorkflow(client: Client, account: string, prefix: string): Promise<{ workflow: string; input: string }> {
  const tool = await client.registerTool({
    name: `${prefix}copy`,
    cmd_template: 'cp {{ inputs.reads[0].path }} {{ outputs.out[0].path }}',
    inputs: { reads: { type: 'file', formats: ['fastq'], required: true, minitems: 1, maxitems: 1 } },
    outputs: { out: { type: 'file', formats: 'fastq', required: true } },
    requirements: { container: { image: 'debian:bookworm', type: 'docker' }, resources: { cpu: 1, mem: '64m', disk: '64m', network: false } },
  });
  const workflow = `${prefix}wf`;
  await client.registerWorkflow(workflow, {
    nodelist: [
      { node_id: 'load', app_id: 'loaddata', name: 'loaddata', outputs: { data: { enid: 'reads' } } },
      {
        node_id: 'copy',
        app_id: `/${account}/${prefix}copy/${tool.tool_version}`,
        inputs: { reads: [{ enid: 'reads' }] },
        outputs: { out: [{ enid: 'copied' }] },
      },
      { node_id: 'save', app_id: 'storedata', name: 'storedata', inputs: { data: { enid: 'copied' } } },
    ],
  });
  const input = `/${prefix}/in.fastq`;
  await client.putData(input, Buffer.from('@r\nACGT\n+\nIIII\n'));
  return { workflow, input };
}
