import type { Command } from 'commander';
import type { WorkflowGraph } from '../../../client/types.js';
import { clientCommand, clientFor, type ClientFlags } from '../../context.js';
import { versionOption } from '../../documents.js';
import { missingWorkflow } from '../../not-found.js';
import { formatTable, printJson, say } from '../../output.js';
import { ownerClient, withOwner } from '../../owner.js';

/** The graph as text: the nodes stage by stage (a node's stage is one past its deepest input), then every link. */
export function formatGraph(graph: WorkflowGraph): string {
  const lines = [`workflow ${graph.workflow_name} version ${graph.workflow_version}: ${graph.nodes.length} nodes, ${graph.edges.length} links`, ''];
  const nodes = [...graph.nodes].sort((a, b) => a.depth - b.depth);
  lines.push(
    formatTable(nodes, [
      { header: 'stage', value: (n) => n.depth, right: true },
      { header: 'node', value: (n) => n.node_id },
      { header: 'kind', value: (n) => n.kind },
      { header: 'tool', value: (n) => (n.tool ? `${n.tool.name} v${n.tool.version}` : n.name) },
      { header: 'inputs', value: (n) => n.inputs.join(', ') },
      { header: 'outputs', value: (n) => n.outputs.join(', ') },
      { header: 'alias', value: (n) => n.alias },
    ]),
  );
  lines.push('', 'links:');
  const width = Math.max(0, ...graph.edges.map((e) => `${e.from}.${e.from_port}`.length));
  for (const edge of graph.edges) {
    const formats = edge.formats && edge.formats.length ? ` [${edge.formats.join(', ')}]` : '';
    lines.push(`  ${`${edge.from}.${edge.from_port}`.padEnd(width)} --> ${edge.to}.${edge.to_port}${formats}  (${edge.enid})`);
  }
  if (graph.edges.length === 0) lines.push('  (none)');
  return lines.join('\n');
}

/** `gdflow workflow graph`: nodes and links of a validated version, readably. */
export function registerWorkflowGraph(workflow: Command): void {
  const command = clientCommand(workflow.command('graph <name>').description("print a workflow's nodes (by stage) and the links between them"), { json: true });
  command.option('--version <n>', 'workflow version (default: the latest runnable one)');
  withOwner(command, 'the graph of a workflow').action(async (name: string, flags: ClientFlags & { version?: string; owner?: string }) => {
    const version = versionOption(flags.version);
    const source = await ownerClient(clientFor(flags), flags.owner);
    const graph = await source.getWorkflowGraph(name, version).catch(missingWorkflow(source, name));
    if (flags.json) return printJson(graph);
    say(formatGraph(graph));
  });
}
