/** Workflows: the list, and a version's graph with the selected node's tool and parameters. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { ErrorBox, Loading, StateBadge, useLoad } from '../components/common.js';
import { Graph } from '../components/graph.js';
import { formatTime, t } from '../i18n.js';
import { href, navigate } from '../router.js';
import { api, ownerPath, projectPath, session } from '../session.js';
import type { GraphNode, GraphView, RunTemplate, ToolAsRead, WorkflowAsRead, WorkflowSummary } from '../types.js';

const PUBLIC = 'public';

async function listOrEmpty(path: string, signal: AbortSignal): Promise<WorkflowSummary[][]> {
  try {
    return (await api().json<{ items: WorkflowSummary[][] }>('GET', path, { signal })).items;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return [];
    throw error;
  }
}

export function WorkflowList() {
  const own = useLoad((signal) => listOrEmpty(projectPath('workflows/'), signal), []);
  const isPublic = session()?.account === PUBLIC;
  const shared = useLoad((signal) => (isPublic ? Promise.resolve([]) : listOrEmpty(ownerPath(PUBLIC, 'executable-workflows/'), signal).catch(() => [])), []);
  return (
    <section>
      <h1>{t('Workflows')}</h1>
      <ErrorBox error={own.error} />
      {own.loading && !own.data ? (
        <Loading />
      ) : (
        own.data && <WorkflowTable groups={own.data} empty={t('No workflows in this project yet (gdflow workflow create -f FILE registers one).')} />
      )}
      {shared.data && shared.data.length > 0 && (
        <>
          <h2>{t('Public workflows')}</h2>
          <WorkflowTable groups={shared.data} owner={PUBLIC} empty="" />
        </>
      )}
    </section>
  );
}

function WorkflowTable({ groups, owner, empty }: { groups: WorkflowSummary[][]; owner?: string; empty: string }) {
  if (groups.length === 0) return <p class="muted">{empty}</p>;
  const query = owner ? { owner } : undefined;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t('Name')}</th>
            <th scope="col">{t('Versions')}</th>
            <th scope="col">{t('State')}</th>
            <th scope="col">{t('Description')}</th>
            <th scope="col">{t('Modified')}</th>
            <th scope="col">
              <span class="sr-only">{t('Actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {groups.map((versions) => {
            const latest = versions[versions.length - 1]!;
            const runnable = [...versions].reverse().find((v) => v.status === 'checked');
            return (
              <tr key={latest.workflow_name}>
                <td>
                  <a href={href(['workflows', latest.workflow_name, latest.workflow_version], query)}>{latest.workflow_name}</a>
                </td>
                <td class="versions">
                  {versions.map((v) => (
                    <a
                      key={v.workflow_version}
                      class="version"
                      href={href(['workflows', v.workflow_name, v.workflow_version], query)}
                      aria-label={t('{name} version {v}', { name: v.workflow_name, v: v.workflow_version })}>
                      v{v.workflow_version}
                    </a>
                  ))}
                </td>
                <td>
                  <StateBadge state={latest.status} />
                </td>
                <td class="desc">{latest.description}</td>
                <td class="nowrap">{formatTime(latest.modified_time)}</td>
                <td class="nowrap">
                  {runnable && (
                    <a
                      class="button small"
                      href={href(['run', runnable.workflow_name, runnable.workflow_version], query)}
                      aria-label={t('Run {name}', { name: runnable.workflow_name })}>
                      {t('Run')}
                    </a>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function WorkflowPage({
  name,
  version,
  node,
  owner,
}: {
  name: string;
  version?: number | undefined;
  node?: string | undefined;
  owner?: string | undefined;
}) {
  const versions = useLoad(
    (signal) => api().json<{ workflows: WorkflowAsRead[] }>('GET', ownerPath(owner, `workflows/${encodeURIComponent(name)}/`), { signal }),
    [name, owner],
  );
  const current = versions.data
    ? (versions.data.workflows.find((w) => w.version === version) ?? versions.data.workflows[versions.data.workflows.length - 1])
    : undefined;
  const graph = useLoad(
    async (signal) => {
      if (!current || current.status !== 'checked') return undefined;
      const view = await api().json<GraphView>('GET', ownerPath(owner, `workflows/${encodeURIComponent(name)}/graph/`), {
        query: { workflow_version: current.version },
        signal,
      });
      performance.mark('gdflow:graph-data');
      return view;
    },
    [current?.version, current?.status],
  );
  const [selected, setSelected] = useState(node);
  useEffect(() => setSelected(node), [node]);
  const select = (id: string) => {
    setSelected(id);
    navigate(href(['workflows', name, current?.version ?? ''], { node: id, owner }), true);
  };
  if (versions.loading && !versions.data) return <Loading />;
  if (versions.error || !current) return <ErrorBox error={versions.error} />;
  const query = owner ? { owner } : undefined;
  const configNode = current.configs.nodelist?.find((n) => n.node_id === selected);
  const graphNode = graph.data?.nodes.find((n) => n.node_id === selected);
  return (
    <section>
      <nav class="crumbs" aria-label={t('Breadcrumbs')}>
        <a href="#/workflows">{t('Workflows')}</a> / <span>{name}</span>
      </nav>
      <div class="page-head">
        <h1>
          {name} <span class="muted">v{current.version}</span> <StateBadge state={current.status} />
        </h1>
        {current.status === 'checked' && (
          <a class="button primary" href={href(['run', name, current.version], query)}>
            {t('Run this workflow')}
          </a>
        )}
      </div>
      <p class="versions" aria-label={t('Versions')}>
        {versions.data!.workflows.map((w) => (
          <a
            key={w.version}
            class="version"
            href={href(['workflows', name, w.version], query)}
            aria-current={w.version === current.version ? 'page' : undefined}>
            v{w.version}
          </a>
        ))}
      </p>
      {current.description && <p>{current.description}</p>}
      {current.status !== 'checked' && <p class="notice">{t('This version has no valid configuration yet, so it has no graph.')}</p>}
      <ErrorBox error={graph.error} />
      {graph.loading && !graph.data && current.status === 'checked' && <Loading />}
      {graph.data && (
        <div class="graph-layout">
          <Graph view={graph.data} selected={selected} onSelect={select} onRendered={(ms) => markPainted('gdflow:graph-painted', ms)} />
          <aside class="panel" aria-label={t('Selected node')} aria-live="polite">
            {graphNode ? (
              <NodeDetails
                view={graph.data}
                node={graphNode}
                parameters={configNode?.parameters ?? null}
                workflow={{ name, version: current.version, owner }}
              />
            ) : (
              <p class="muted">{t('Select a node to see its tool and parameters.')}</p>
            )}
          </aside>
        </div>
      )}
    </section>
  );
}

/** A performance mark once the browser has painted what was just rendered (the benchmark reads it). */
export function markPainted(name: string, layoutMs?: number): void {
  requestAnimationFrame(() => setTimeout(() => performance.mark(name, { detail: { layoutMs } }), 0));
}

type NodeParameters = Record<string, { value?: unknown; variable?: boolean }>;

function NodeDetails({ view, node, parameters, workflow }: { view: GraphView; node: GraphNode; parameters: NodeParameters | null; workflow: WorkflowRef }) {
  const incoming = view.edges.filter((e) => e.to === node.node_id);
  const outgoing = view.edges.filter((e) => e.from === node.node_id);
  const params = Object.entries(parameters ?? {});
  return (
    <div class="node-details">
      <h2>{node.alias || node.node_id}</h2>
      <dl class="facts">
        <dt>{t('Node')}</dt>
        <dd>
          <code>{node.node_id}</code>
        </dd>
        <dt>{t('Kind')}</dt>
        <dd>{node.kind === 'tool' ? t('tool') : node.kind === 'load' ? t('load data') : t('store data')}</dd>
        {node.tool && (
          <>
            <dt>{t('Tool')}</dt>
            <dd>
              <a href={href(['tools', node.tool.name, node.tool.version], node.tool.account !== session()?.account ? { owner: node.tool.account } : undefined)}>
                {node.tool.name} v{node.tool.version}
              </a>
              {node.tool.account !== session()?.account && <span class="muted"> ({node.tool.account})</span>}
            </dd>
          </>
        )}
      </dl>
      {incoming.length > 0 && (
        <>
          <h3>{t('Inputs')}</h3>
          <ul class="plain">
            {incoming.map((e, i) => (
              <li key={i}>
                <code>{e.to_port}</code> ← {e.from}.{e.from_port} {e.formats.length > 0 && <span class="muted">({e.formats.join(', ')})</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {outgoing.length > 0 && (
        <>
          <h3>{t('Outputs')}</h3>
          <ul class="plain">
            {outgoing.map((e, i) => (
              <li key={i}>
                <code>{e.from_port}</code> → {e.to}.{e.to_port} {e.formats.length > 0 && <span class="muted">({e.formats.join(', ')})</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {node.tool ? <ParameterValues key={node.node_id} node={node} tool={node.tool} workflow={workflow} set={parameters ?? {}} /> : <SetValues set={params} />}
    </div>
  );
}

/** The values a store or load step sets (its name, its description). */
function SetValues({ set }: { set: Array<[string, { value?: unknown; variable?: boolean }]> }) {
  if (set.length === 0) return null;
  return (
    <>
      <h3>{t('Parameters')}</h3>
      <table class="compact">
        <tbody>
          {set.map(([name, p]) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td>{shown(p?.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

interface WorkflowRef {
  name: string;
  version: number;
  owner: string | undefined;
}

const blank = (value: unknown): boolean => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/**
 * Each parameter of a tool node with the value a run uses: the run template's (GET executable-workflows/: the
 * workflow's value, or a saved run default) or, where it leaves the value empty, the tool's default, as
 * ActivateWorkflow fills it in (docs/tasks.md).
 */
function ParameterValues({ node, tool, workflow, set }: { node: GraphNode; tool: NonNullable<GraphNode['tool']>; workflow: WorkflowRef; set: NodeParameters }) {
  const loaded = useLoad(
    async (signal) => {
      const toolPath = `/accounts/${encodeURIComponent(tool.account)}/projects/${encodeURIComponent(tool.project)}/tools/${encodeURIComponent(tool.name)}/`;
      const templatePath = ownerPath(workflow.owner, `executable-workflows/${encodeURIComponent(workflow.name)}/`);
      const [definition, template] = await Promise.all([
        api().json<{ tools: ToolAsRead[] }>('GET', toolPath, { query: { tool_version: tool.version }, signal }),
        api().json<{ parameter: RunTemplate }>('GET', templatePath, { query: { workflow_version: workflow.version }, signal }),
      ]);
      const specs = definition.tools[0]?.configs.parameters;
      return {
        specs: (specs && typeof specs === 'object' ? specs : {}) as Record<string, { default?: unknown }>,
        template: template.parameter.Parameters[node.node_id]?.parameters ?? {},
      };
    },
    [node.node_id, tool.tool_id, workflow.name, workflow.version],
  );
  const names = Object.keys(loaded.data?.specs ?? set);
  return (
    <>
      <h3>{t('Parameters')}</h3>
      <ErrorBox error={loaded.error} />
      {loaded.loading && !loaded.data ? (
        <Loading />
      ) : names.length === 0 ? (
        <p class="muted">{t('None')}</p>
      ) : (
        <table class="compact">
          <tbody>
            {names.map((name) => {
              const fromTemplate = loaded.data?.template[name]?.value ?? set[name]?.value;
              const toolDefault = loaded.data?.specs[name]?.default;
              // The run template holds the tool's default where the workflow sets no value, and nothing where it sets null.
              const byDefault = blank(fromTemplate) || (blank(set[name]?.value) && shown(fromTemplate) === shown(toolDefault));
              const value = blank(fromTemplate) ? toolDefault : fromTemplate;
              const fixed = (loaded.data?.template[name]?.variable ?? set[name]?.variable) === false;
              return (
                <tr key={name}>
                  <th scope="row">
                    <code>{name}</code>
                  </th>
                  <td>
                    {blank(value) ? <span class="muted">{t('no value')}</span> : <code class="wrap">{shown(value)}</code>}
                    <div class="muted small">
                      {byDefault ? t('tool default') : t('set by the workflow')} · {fixed ? t('fixed') : t('changeable at run time')}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
