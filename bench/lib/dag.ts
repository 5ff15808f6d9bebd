import type { Transport } from '../../src/client/transport.js';
import type { ToolAsRead } from '../../src/client/types.js';

/**
 * The benchmarks' DAG of trivial jobs, registered as the workflow `dag` of `project`: `chains` independent chains
 * of `steps` jobs, the first writing a line (`echo x > out`), each next one copying its input and adding a line.
 * Peers (make, snakemake) run the same shape.
 */
export async function registerDag(
  transport: Transport,
  project: string,
  options: { chains: number; steps: number; requirements: Record<string, unknown> },
): Promise<void> {
  const { chains, steps, requirements } = options;
  const tools = {
    first: { cmd_template: 'echo x > {{ outputs.out[0].path }}', inputs: {}, outputs: { out: { type: 'file', formats: 'txt' } }, requirements },
    next: {
      cmd_template: 'cat {{ inputs.src[0].path }} > {{ outputs.out[0].path }}; echo x >> {{ outputs.out[0].path }}',
      inputs: { src: { type: 'file', formats: ['txt'], required: true } },
      outputs: { out: { type: 'file', formats: 'txt' } },
      requirements,
    },
  };
  const ids: Record<string, string> = {};
  for (const [name, configs] of Object.entries(tools)) {
    await transport.send('POST', `${project}/tools/`, { json: { tool_name: name } });
    await transport.send('PUT', `${project}/tools/${name}/`, { json: { tool_version: 1, configs: { name, ...configs } } });
    ids[name] = (await transport.json<{ tools: ToolAsRead[] }>('GET', `${project}/tools/${name}/`)).tools[0]!.configs._id;
  }
  const nodelist = [];
  for (let c = 0; c < chains; c++) {
    for (let s = 1; s <= steps; s++) {
      nodelist.push({
        node_id: `c${c}_s${s}`,
        app_id: s === 1 ? ids.first : ids.next,
        inputs: s === 1 ? {} : { src: [{ enid: `c${c}_l${s - 1}` }] },
        outputs: s === steps ? {} : { out: [{ enid: `c${c}_l${s}` }] },
      });
    }
  }
  await transport.send('POST', `${project}/workflows/`, { json: { workflow_name: 'dag' } });
  await transport.send('PUT', `${project}/workflows/dag/`, { json: { workflow_version: 1, configs: { nodelist } } });
}
