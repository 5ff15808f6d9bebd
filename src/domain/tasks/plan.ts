import type { ResolvedRun } from './activation.js';
import type { GraphNode, WorkflowGraph } from '../workflows/graph.js';
import { newId } from '../../ids.js';
import type { DataRef } from '../../data/index.js';
import { jobFilePath, renderCommand, RenderError } from '../render/index.js';
import type { FileSource, JobSpec, ToolJobSpec } from './job-spec.js';
import { canonicalJson, sha256 } from '../cache/key.js';
import type { ToolDefinition } from '../tools/definition.js';
import { basename, distinctNames, outputFileNames, safeFileName } from './file-names.js';

/**
 * Turn a validated workflow graph and a task's resolved run parameters into jobs: one per node,
 * with every path fixed and every command rendered before anything runs, so that a run that
 * cannot render fails at activation with a reason, not half-way through.
 *
 * Layout inside a job's sandbox (/var/data is the job's working directory):
 *   /var/data/inputs/<input>/<file>    read-only binds of stored data or upstream outputs
 *   /var/data/outputs/<output>/<file>  what the command writes
 */

export type { FileSource, JobSpec, LoadJobSpec, SaveJobSpec, ToolJobSpec } from './job-spec.js';

export interface PlannedJob {
  id: string;
  nodeId: string;
  name: string;
  spec: JobSpec;
  command: string;
  cpu: number;
  memMb: number;
}

export class PlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanError';
  }
}

/** A job id as clients expect it (docs/wire.md §4): `<task_id>_<24-hex>_<node_id>`. */
export const jobIdFor = (taskId: string, nodeId: string): string => `${taskId}_${newId()}_${nodeId}`;

interface LinkFile {
  source: FileSource;
  name: string;
}

/** What of a tool's definition decides its results: a change of resources, policies or descriptions keeps its digest. */
export function toolDigest(def: ToolDefinition): string {
  return sha256(canonicalJson({ cmdTemplate: def.cmdTemplate, image: def.image, inputs: def.inputs, outputs: def.outputs, parameters: def.parameters }));
}

export function buildPlan(taskId: string, graph: WorkflowGraph, run: ResolvedRun): PlannedJob[] {
  const jobIds = new Map<string, string>(graph.nodes.map((n) => [n.id, jobIdFor(taskId, n.id)]));
  const linkFiles = new Map<string, LinkFile[]>();
  const jobs: PlannedJob[] = [];
  // The nodes of one tool share its resolved definition (workflows/tool-resolver.ts): its digest is made once, not per
  // node (a canonical JSON of the whole definition per job was a sixth of a 1,000-job activation, issue 23 item 7).
  const digests = new Map<ToolDefinition, string>();
  const digestOf = (def: ToolDefinition): string => {
    let digest = digests.get(def);
    if (digest === undefined) digests.set(def, (digest = toolDigest(def)));
    return digest;
  };

  const outputNames = (node: GraphNode, port: string, enids: string[]): string[] => {
    const definition = node.tool!.definition.outputs[port]!;
    // As many files as the stores of this output want (each stored item is one file), else the declared minimum.
    let stored: DataRef[] = [];
    for (const enid of enids) {
      for (const to of graph.links.get(enid)!.to) {
        const consumer = graph.byId.get(to.node)!;
        if (consumer.kind === 'store') {
          const refs = run.outputs[consumer.id]!.map((o) => o.ref);
          if (refs.length > stored.length) stored = refs;
        }
      }
    }
    return outputFileNames(
      port,
      definition.formats,
      definition.minitems,
      stored.map((ref) => ref.path),
    );
  };

  for (const node of graph.nodes) {
    const id = jobIds.get(node.id)!;
    const deps = new Set<string>();
    const inputFiles = (port: string): LinkFile[] =>
      (node.inputs[port] ?? []).flatMap((enid) => {
        deps.add(jobIds.get(graph.links.get(enid)!.from.node)!);
        return linkFiles.get(enid) ?? [];
      });

    if (node.kind === 'load') {
      const items = run.inputs[node.id] ?? [];
      linkFiles.set(
        node.outputs.data![0]!,
        items.map((ref) => ({ source: { kind: 'data', account: ref.account, path: ref.path }, name: safeFileName(basename(ref.path), 'input') })),
      );
      const command = items.length === 0 ? '# no input data' : `# check ${items.map((r) => `${r.account}:${r.path}`).join(' ')}`;
      jobs.push({
        id,
        nodeId: node.id,
        name: 'loaddata',
        command,
        cpu: 0,
        memMb: 0,
        spec: { kind: 'load', nodeId: node.id, alias: node.alias, deps: [], items },
      });
      continue;
    }

    if (node.kind === 'store') {
      const files = inputFiles('data');
      const targets = run.outputs[node.id] ?? [];
      const imports = targets.slice(0, files.length).map((t, i) => ({ source: files[i]!.source, target: t.ref, description: t.description }));
      const command = imports.map((i) => `# store ${i.target.account}:${i.target.path}`).join('\n');
      jobs.push({
        id,
        nodeId: node.id,
        name: 'storedata',
        command,
        cpu: 0,
        memMb: 0,
        spec: { kind: 'store', nodeId: node.id, alias: node.alias, deps: [...deps], imports },
      });
      continue;
    }

    const tool = node.tool!;
    const def = tool.definition;
    const mounts: ToolJobSpec['mounts'] = [];
    const inputs: Record<string, string[]> = {};
    for (const port of Object.keys(def.inputs)) {
      const files = inputFiles(port);
      const names = distinctNames(files.map((f) => f.name));
      inputs[port] = files.map((file, i) => {
        const sandboxPath = jobFilePath('inputs', port, names[i]!);
        mounts.push({ source: file.source, sandboxPath });
        return sandboxPath;
      });
    }
    const outputs: Record<string, string[]> = {};
    const outputFiles: string[] = [];
    for (const port of Object.keys(def.outputs)) {
      const enids = node.outputs[port] ?? [];
      const names = outputNames(node, port, enids);
      outputs[port] = names.map((name) => jobFilePath('outputs', port, name));
      const relative = names.map((name) => `outputs/${port}/${name}`);
      outputFiles.push(...relative);
      for (const enid of enids)
        linkFiles.set(
          enid,
          relative.map((path, i) => ({ source: { kind: 'job', jobId: id, nodeId: node.id, path }, name: names[i]! })),
        );
    }
    let rendered;
    try {
      rendered = renderCommand({ tool: def, inputs, outputs, parameters: run.parameters[node.id] ?? {} });
    } catch (error) {
      if (error instanceof RenderError)
        throw new PlanError(`node '${node.id}': the command of tool ${tool.name}:${tool.version} cannot be rendered: ${error.message}`);
      throw error;
    }
    const spec: ToolJobSpec = {
      kind: 'tool',
      nodeId: node.id,
      alias: node.alias,
      deps: [...deps],
      command: rendered.command,
      ...(rendered.stdin !== undefined ? { stdin: rendered.stdin } : {}),
      ...(rendered.stdout !== undefined ? { stdout: rendered.stdout } : {}),
      mounts,
      outputFiles,
      cpu: def.resources.cpu,
      memMb: def.resources.memMb,
      network: def.resources.network,
      image: def.image,
      tool: { name: tool.name, version: tool.version, digest: digestOf(def) },
      parameters: run.parameters[node.id] ?? {},
      callCaching: def.callCaching,
      retry: def.retry,
    };
    jobs.push({ id, nodeId: node.id, name: tool.name, command: rendered.command, cpu: def.resources.cpu, memMb: def.resources.memMb, spec });
  }
  return jobs;
}
