/** Tools: the list with versions, a version's definition, and a new version from an edited YAML document. */
import { useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { ErrorBox, Loading, StateBadge, useLoad } from '../components/common.js';
import { errorText, formatTime, t } from '../i18n.js';
import { href, navigate } from '../router.js';
import { api, ownerPath, projectPath, session } from '../session.js';
import type { ToolAsRead, ToolSummary } from '../types.js';
import type { Problem } from '../yaml-doc.js';

/** The YAML code (the yaml library) is loaded when a page needs it, not with the console. */
type YamlDoc = typeof import('../yaml-doc.js');
const loadYaml = (): Promise<YamlDoc> => import('../yaml-doc.js');

const PUBLIC = 'public';

/** A list answer, or no items when the project has none (ListTool answers 404 ToolNotExists then). */
async function listOrEmpty<T>(path: string, signal: AbortSignal): Promise<T[][]> {
  try {
    return (await api().json<{ items: T[][] }>('GET', path, { signal })).items;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return [];
    throw error;
  }
}

export function ToolList() {
  const own = useLoad((signal) => listOrEmpty<ToolSummary>(projectPath('tools/'), signal), []);
  const isPublic = session()?.account === PUBLIC;
  const shared = useLoad((signal) => (isPublic ? Promise.resolve([]) : listOrEmpty<ToolSummary>(ownerPath(PUBLIC, 'tools/'), signal).catch(() => [])), []);
  return (
    <section>
      <div class="page-head">
        <h1>{t('Tools')}</h1>
        <a class="button primary" href="#/tools/+new">
          {t('New tool')}
        </a>
      </div>
      <ErrorBox error={own.error} />
      {own.loading && !own.data ? <Loading /> : own.data && <ToolTable groups={own.data} empty={t('No tools in this project yet.')} />}
      {shared.data && shared.data.length > 0 && (
        <>
          <h2>{t('Public tools')}</h2>
          <ToolTable groups={shared.data} owner={PUBLIC} empty="" />
        </>
      )}
    </section>
  );
}

function ToolTable({ groups, owner, empty }: { groups: ToolSummary[][]; owner?: string; empty: string }) {
  if (groups.length === 0) return <p class="muted">{empty}</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t('Name')}</th>
            <th scope="col">{t('Versions')}</th>
            <th scope="col">{t('State')}</th>
            <th scope="col">{t('Category')}</th>
            <th scope="col">{t('Description')}</th>
            <th scope="col">{t('Modified')}</th>
          </tr>
        </thead>
        <tbody>
          {groups.map((versions) => {
            const latest = versions[versions.length - 1]!;
            const query = owner ? { owner } : undefined;
            return (
              <tr key={latest.tool_name}>
                <td>
                  <a href={href(['tools', latest.tool_name, latest.tool_version], query)}>{latest.tool_name}</a>
                </td>
                <td class="versions">
                  {versions.map((v) => (
                    <a
                      key={v.tool_version}
                      href={href(['tools', v.tool_name, v.tool_version], query)}
                      class="version"
                      aria-label={t('{name} version {v}', { name: v.tool_name, v: v.tool_version })}>
                      v{v.tool_version}
                    </a>
                  ))}
                </td>
                <td>
                  <StateBadge state={latest.status} />
                </td>
                <td>{latest.category}</td>
                <td class="desc">{latest.description}</td>
                <td class="nowrap">{formatTime(latest.modified_time)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

type Spec = Record<string, unknown>;
const isSpec = (v: unknown): v is Spec => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown): string => {
  if (v === undefined || v === null || v === '') return '—';
  if (Array.isArray(v)) return v.map((item: unknown) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ');
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
};

export function ToolPage({ name, version, owner }: { name: string; version?: number | undefined; owner?: string | undefined }) {
  const { data, error, loading } = useLoad(
    (signal) => api().json<{ tools: ToolAsRead[] }>('GET', ownerPath(owner, `tools/${encodeURIComponent(name)}/`), { signal }),
    [name, owner],
  );
  if (loading && !data) return <Loading />;
  if (error || !data) return <ErrorBox error={error} />;
  const versions = data.tools;
  const tool = (version === undefined ? versions[versions.length - 1] : versions.find((v) => v.configs.version === version)) ?? versions[versions.length - 1]!;
  const c = tool.configs;
  const requirements = isSpec(c.requirements) ? c.requirements : {};
  const container = isSpec(requirements.container) ? requirements.container : {};
  const resources = isSpec(requirements.resources) ? requirements.resources : {};
  const query = owner ? { owner } : undefined;
  const mine = !owner || owner === session()?.account;
  return (
    <section>
      <nav class="crumbs" aria-label={t('Breadcrumbs')}>
        <a href="#/tools">{t('Tools')}</a> / <span>{name}</span>
      </nav>
      <div class="page-head">
        <h1>
          {name} <span class="muted">v{c.version}</span> <StateBadge state={tool.status} />
        </h1>
        {mine && (
          <a class="button primary" href={href(['tools', name, c.version, 'edit'])}>
            {t('New version from this one')}
          </a>
        )}
      </div>
      <p class="versions" aria-label={t('Versions')}>
        {versions.map((v) => (
          <a
            key={v.configs.version}
            href={href(['tools', name, v.configs.version], query)}
            class="version"
            aria-current={v.configs.version === c.version ? 'page' : undefined}>
            v{v.configs.version}
          </a>
        ))}
      </p>
      {tool.description && <p>{tool.description}</p>}
      <dl class="facts">
        <dt>{t('Image')}</dt>
        <dd>
          <code>{show(container.image)}</code>
        </dd>
        <dt>{t('Resources')}</dt>
        <dd>
          {t('{cpu} CPU, {mem} memory, {disk} disk, network {net}', {
            cpu: show(resources.cpu ?? 1),
            mem: show(resources.mem ?? '1024m'),
            disk: show(resources.disk ?? '1024m'),
            net: resources.network ? t('on') : t('off'),
          })}
        </dd>
        <dt>{t('Category')}</dt>
        <dd>{show(c.category)}</dd>
        <dt>{t('Modified')}</dt>
        <dd>{formatTime(tool.modified_time)}</dd>
        {typeof c.homepage === 'string' && c.homepage && (
          <>
            <dt>{t('Homepage')}</dt>
            <dd>{c.homepage}</dd>
          </>
        )}
      </dl>
      <h2>{t('Inputs')}</h2>
      <PortTable ports={isSpec(c.inputs) ? c.inputs : {}} />
      <h2>{t('Outputs')}</h2>
      <PortTable ports={isSpec(c.outputs) ? c.outputs : {}} />
      <h2>{t('Parameters')}</h2>
      <ParameterTable parameters={isSpec(c.parameters) ? c.parameters : {}} />
      <h2>{t('Command template')}</h2>
      <pre class="code">{typeof c.cmd_template === 'string' && c.cmd_template ? c.cmd_template : t('(assembled from the inputs, outputs and parameters)')}</pre>
      <details>
        <summary>{t('YAML document')}</summary>
        <YamlView configs={c} />
      </details>
    </section>
  );
}

function YamlView({ configs }: { configs: Record<string, unknown> }) {
  const yaml = useLoad(() => loadYaml(), []);
  return <pre class="code">{yaml.data ? yaml.data.toolYaml(configs) : t('Loading…')}</pre>;
}

function PortTable({ ports }: { ports: Spec }) {
  const entries = Object.entries(ports).filter(([, v]) => isSpec(v)) as Array<[string, Spec]>;
  if (entries.length === 0) return <p class="muted">{t('None')}</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t('Name')}</th>
            <th scope="col">{t('Formats')}</th>
            <th scope="col">{t('Items')}</th>
            <th scope="col">{t('Required')}</th>
            <th scope="col">{t('Hint')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([name, p]) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td>{show(p.formats)}</td>
              <td>{p.minitems === undefined && p.maxitems === undefined ? '—' : `${show(p.minitems ?? 0)}–${show(p.maxitems ?? 1)}`}</td>
              <td>{p.required ? t('yes') : t('no')}</td>
              <td>{show(p.hint)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ParameterTable({ parameters }: { parameters: Spec }) {
  const entries = Object.entries(parameters).filter(([, v]) => isSpec(v)) as Array<[string, Spec]>;
  if (entries.length === 0) return <p class="muted">{t('None')}</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t('Name')}</th>
            <th scope="col">{t('Type')}</th>
            <th scope="col">{t('Default')}</th>
            <th scope="col">{t('Range')}</th>
            <th scope="col">{t('Required')}</th>
            <th scope="col">{t('Hint')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([name, p]) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td>{show(p.type)}</td>
              <td>{show(p.default ?? p.value)}</td>
              <td>{p.minvalue === undefined && p.maxvalue === undefined ? '—' : `${show(p.minvalue)} … ${show(p.maxvalue)}`}</td>
              <td>{p.required ? t('yes') : t('no')}</td>
              <td>{show(p.hint)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The editor's line height in px (styles.css, .editor). */
const LINE_HEIGHT = 20;

const NEW_TOOL = `app:
  name: my_tool
  description: What the tool does
  cmd_template: cat {{ inputs.reads[0].path }} > {{ outputs.out[0].path }}
  inputs:
    reads: {type: file, formats: [fastq], minitems: 1, maxitems: 1, required: true}
  outputs:
    out: {type: file, formats: [fastq], required: true}
  parameters: {}
  requirements:
    container: {image: 'debian:bookworm', type: docker}
    resources: {cpu: 1, mem: 512m, disk: 1g, network: false}
`;

/**
 * A new version of a tool (or a new tool) from its YAML document. The version is created (CreateTool) and its
 * definition put (PutTool); a definition the server refuses leaves no version behind (it is deleted again), and the
 * refusal is shown on the line it concerns.
 */
export function ToolEditor({ name, version }: { name?: string; version?: number }) {
  const existing = useLoad(
    (signal) =>
      Promise.all([
        loadYaml(),
        name === undefined
          ? Promise.resolve(undefined)
          : api().json<{ tools: ToolAsRead[] }>('GET', projectPath(`tools/${encodeURIComponent(name)}/`), { signal }),
      ]),
    [name],
  );
  const source = useMemo(() => {
    if (!existing.data) return undefined;
    const [yaml, answer] = existing.data;
    if (name === undefined || !answer) return NEW_TOOL;
    const base = answer.tools.find((v) => v.configs.version === version) ?? answer.tools[answer.tools.length - 1]!;
    return yaml.toolYaml(base.configs);
  }, [existing.data]);
  if (existing.error) return <ErrorBox error={existing.error} />;
  if (!existing.data || source === undefined) return <Loading />;
  return <Editor name={name} baseVersion={version} initial={source} yaml={existing.data[0]} />;
}

function Editor({ name, baseVersion, initial, yaml }: { name: string | undefined; baseVersion: number | undefined; initial: string; yaml: YamlDoc }) {
  const { locate, parseTool } = yaml;
  const [text, setText] = useState(initial);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const lines = text.split('\n').length;
  const badLines = new Set(problems.map((p) => p.line).filter((l): l is number => l !== undefined));

  const goTo = (line: number | undefined) => {
    const el = area.current;
    if (!el || line === undefined) return;
    const parts = text.split('\n');
    const start = parts.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    el.focus();
    el.setSelectionRange(start, start + (parts[line - 1]?.length ?? 0));
    el.scrollTop = Math.max(0, (line - 4) * LINE_HEIGHT);
    if (gutter.current) gutter.current.scrollTop = el.scrollTop;
  };

  const save = async (event: Event) => {
    event.preventDefault();
    const parsed = parseTool(text);
    if (!parsed.ok) {
      setProblems(parsed.problems);
      goTo(parsed.problems[0]?.line);
      return;
    }
    const definition = { ...parsed.definition };
    const toolName = name ?? definition.name;
    if (typeof toolName !== 'string' || toolName === '') {
      setProblems([{ message: t('The document has no name: give the tool a name (name: ...).'), line: 1 }]);
      return;
    }
    if (name !== undefined && definition.name !== undefined && definition.name !== name) {
      setProblems([{ ...locate(parsed, 'since name'), message: t('name must stay {name}: a new version keeps the tool name', { name }) }]);
      return;
    }
    definition.name = toolName;
    const description = typeof definition.description === 'string' ? definition.description : undefined;
    setBusy(true);
    setProblems([]);
    const client = api();
    const path = projectPath(`tools/${encodeURIComponent(toolName)}/`);
    let created: number | undefined;
    try {
      await client.send('POST', projectPath('tools/'), { json: { tool_name: toolName, ...(description ? { description } : {}) } });
      const versions = (await client.json<{ tools: ToolAsRead[] }>('GET', path)).tools;
      created = versions[versions.length - 1]!.configs.version;
      await client.send('PUT', path, { json: { tool_version: created, ...(description ? { description } : {}), configs: definition } });
      navigate(href(['tools', toolName, created]));
    } catch (error) {
      // The refused version goes again, so that a failed save leaves nothing behind.
      if (created !== undefined) await client.send('DELETE', path, { query: { tool_version: created } }).catch(() => undefined);
      const problem = error instanceof ApiError ? locate(parsed, error.message) : { message: errorText(error) };
      setProblems([{ ...problem, message: errorText(error) }]);
      goTo(problem.line);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <nav class="crumbs" aria-label={t('Breadcrumbs')}>
        <a href="#/tools">{t('Tools')}</a> / {name ? <a href={href(['tools', name, baseVersion ?? ''])}>{name}</a> : <span>{t('New tool')}</span>}
      </nav>
      <h1>{name ? t('New version of {name}', { name }) : t('New tool')}</h1>
      <p class="muted">
        {name
          ? t('Edit the definition (from v{v}) and save it as the next version.', { v: baseVersion ?? '' })
          : t('Write the definition in the app: form of the examples.')}
      </p>
      {/* save shows its own failures on the page: nothing is left to the returned promise. */}
      <form onSubmit={(event) => void save(event)}>
        <label for="tool-yaml">{t('Tool definition (YAML)')}</label>
        <div class={`editor${problems.length ? ' invalid' : ''}`}>
          <div class="gutter" ref={gutter} aria-hidden="true">
            {Array.from({ length: lines }, (_, i) => (
              <div key={i} class={badLines.has(i + 1) ? 'bad' : undefined}>
                {i + 1}
              </div>
            ))}
          </div>
          <textarea
            id="tool-yaml"
            ref={area}
            value={text}
            spellcheck={false}
            wrap="off"
            aria-invalid={problems.length > 0}
            aria-describedby={problems.length ? 'tool-problems' : undefined}
            onInput={(e) => setText(e.currentTarget.value)}
            onScroll={(e) => {
              if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
            }}
            rows={Math.min(60, Math.max(12, lines + 1))}
          />
        </div>
        {problems.length > 0 && (
          <ul class="problems" id="tool-problems" role="alert">
            {problems.map((p, i) => (
              <li key={i}>
                {p.line !== undefined ? (
                  <button type="button" class="link" onClick={() => goTo(p.line)}>
                    {t('Line {line}', { line: p.line })}
                    {p.column !== undefined ? `, ${t('column {c}', { c: p.column })}` : ''}
                  </button>
                ) : null}{' '}
                {p.message}
              </li>
            ))}
          </ul>
        )}
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? t('Saving…') : name ? t('Save as a new version') : t('Create tool')}
          </button>
          <a class="button" href={name ? href(['tools', name, baseVersion ?? '']) : '#/tools'}>
            {t('Cancel')}
          </a>
        </div>
      </form>
    </section>
  );
}
