/**
 * The run form, generated from a workflow version's executable template (GET executable-workflows/<name>/): inputs
 * chosen from the data store and checked against their formats and item counts, parameters typed by their
 * declared types with their hints and defaults, output names. It submits ActivateWorkflow (POST tasks/); a refusal
 * names the member at fault (`parameters.Inputs.load_ref.data[0].name ...`), and is shown at that field.
 */
import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { ErrorBox, Loading, useLoad } from '../components/common.js';
import { DataPicker } from '../components/data-picker.js';
import { errorText, t } from '../i18n.js';
import { href, navigate } from '../router.js';
import { api, ownerPath, session } from '../session.js';
import type { RunTemplate, TemplateParameter, WorkflowAsRead } from '../types.js';

type Errors = Record<string, string>;

const inputId = (node: string, i: number) => `in-${node}-${i}`;
const paramId = (node: string, name: string) => `par-${node}-${name}`;
const outputId = (node: string, i: number) => `out-${node}-${i}`;

export function RunForm({ name, version, owner }: { name: string; version?: number | undefined; owner?: string | undefined }) {
  const loaded = useLoad(
    async (signal) => {
      let v = version;
      if (v === undefined || !Number.isInteger(v)) {
        const { workflows } = await api().json<{ workflows: WorkflowAsRead[] }>('GET', ownerPath(owner, `workflows/${encodeURIComponent(name)}/`), { signal });
        v = [...workflows].reverse().find((w) => w.status === 'checked')?.version;
        if (v === undefined) throw new Error(t('Workflow {name} has no version that can run.', { name }));
      }
      const { parameter } = await api().json<{ parameter: RunTemplate }>('GET', ownerPath(owner, `executable-workflows/${encodeURIComponent(name)}/`), {
        query: { workflow_version: v },
        signal,
      });
      return { version: v, template: parameter };
    },
    [name, version, owner],
  );
  if (loaded.loading && !loaded.data) return <Loading />;
  if (loaded.error || !loaded.data) return <ErrorBox error={loaded.error} />;
  return <Form name={name} version={loaded.data.version} owner={owner} template={loaded.data.template} />;
}

function Form({ name, version, owner, template }: { name: string; version: number; owner: string | undefined; template: RunTemplate }) {
  const [values, setValues] = useState<RunTemplate>(() => structuredClone(template));
  const [taskName, setTaskName] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [picking, setPicking] = useState<{ node: string; index: number } | undefined>();
  const form = useRef<HTMLFormElement>(null);
  const user = session()?.user ?? '';

  const update = (change: (draft: RunTemplate) => void) => {
    setValues((current) => {
      const draft = structuredClone(current);
      change(draft);
      return draft;
    });
  };
  const clearError = (id: string) => errors[id] !== undefined && setErrors(({ [id]: _, ...rest }) => rest);

  const inputs = Object.entries(values.Inputs);
  const outputs = Object.entries(values.Outputs);
  const toolNodes = Object.entries(values.Parameters).filter(([, p]) => Object.keys(p.parameters ?? {}).length > 0);

  const focusFirst = (found: Errors) => {
    const first = Object.keys(found)[0];
    if (first) requestAnimationFrame(() => document.getElementById(first)?.focus());
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setFailure(undefined);
    const found = validate(values);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      focusFirst(found);
      return;
    }
    setBusy(true);
    try {
      const parameters = prepared(values);
      const body = {
        workflow_name: name,
        workflow_version: version,
        ...(owner && owner !== session()?.account ? { workflow_owner: owner } : {}),
        ...(taskName.trim() ? { task_name: taskName.trim() } : {}),
        parameters,
      };
      const started = await api().json<{ task_id: string }>('POST', ownerPath(undefined, 'tasks/'), { json: body });
      navigate(href(['tasks', started.task_id]));
    } catch (error) {
      const field = error instanceof ApiError ? fieldOf(error.message) : undefined;
      if (field && document.getElementById(field)) {
        const found = { [field]: errorText(error) };
        setErrors(found);
        focusFirst(found);
      } else setFailure(error);
    } finally {
      setBusy(false);
    }
  };

  const errorCount = Object.keys(errors).length;
  return (
    <section>
      <nav class="crumbs" aria-label={t('Breadcrumbs')}>
        <a href="#/workflows">{t('Workflows')}</a> / <a href={href(['workflows', name, version], owner ? { owner } : undefined)}>{name}</a> /{' '}
        <span>{t('Run')}</span>
      </nav>
      <h1>{t('Run {name} v{v}', { name, v: version })}</h1>
      {template.description && <p class="muted">{template.description}</p>}
      {/* submit shows its own failures on the page: nothing is left to the returned promise. */}
      <form ref={form} onSubmit={(event) => void submit(event)} noValidate class="run-form">
        {errorCount > 0 && (
          <div class="error" role="alert">
            {t('{n} field(s) need attention: see below.', { n: errorCount })}
          </div>
        )}
        <ErrorBox error={failure} />
        <div class="field">
          <label for="task-name">{t('Task name')}</label>
          <input
            id="task-name"
            value={taskName}
            onInput={(e) => (setTaskName(e.currentTarget.value), clearError('task-name'))}
            placeholder={t('generated when empty')}
            aria-invalid={errors['task-name'] !== undefined}
            aria-describedby={errors['task-name'] ? 'task-name-error' : undefined}
            spellcheck={false}
          />
          <FieldError id="task-name" errors={errors} />
        </div>

        <h2>{t('Inputs')}</h2>
        {inputs.length === 0 && <p class="muted">{t('None')}</p>}
        {inputs.map(([node, input]) => (
          <fieldset key={node} id={`in-${node}`} tabIndex={-1} aria-describedby={`in-${node}-hint${errors[`in-${node}`] ? ` in-${node}-error` : ''}`}>
            <legend>
              {input.alias || node} <code class="muted">{node}</code>
            </legend>
            <p class="hint" id={`in-${node}-hint`}>
              {input.formats.length > 0 ? t('Formats: {f}.', { f: input.formats.join(', ') }) : t('Any format.')}{' '}
              {t('{min} to {max} item(s).', { min: input.minitems, max: input.maxitems })}
              {input.required ? ` ${t('Required.')}` : ''}
            </p>
            {input.data.map((item, i) => (
              <div class="field row" key={i}>
                <label for={inputId(node, i)} class="sr-only">
                  {t('{input}, item {n}', { input: input.alias || node, n: i + 1 })}
                </label>
                <input
                  id={inputId(node, i)}
                  value={item.name ?? ''}
                  placeholder={t('/path/of/a/data/item')}
                  spellcheck={false}
                  aria-invalid={errors[inputId(node, i)] !== undefined}
                  aria-describedby={errors[inputId(node, i)] ? `${inputId(node, i)}-error` : undefined}
                  onInput={(e) => {
                    const value = e.currentTarget.value;
                    update((d) => void (d.Inputs[node]!.data[i]!.name = value));
                    clearError(inputId(node, i));
                  }}
                />
                <button
                  type="button"
                  onClick={() => setPicking({ node, index: i })}
                  aria-label={t('Choose from the data store for {input}, item {n}', { input: input.alias || node, n: i + 1 })}>
                  {t('Choose…')}
                </button>
                {input.data.length > Math.max(1, input.minitems) && (
                  <button type="button" onClick={() => update((d) => void d.Inputs[node]!.data.splice(i, 1))} aria-label={t('Remove item {n}', { n: i + 1 })}>
                    {t('Remove')}
                  </button>
                )}
                <FieldError id={inputId(node, i)} errors={errors} />
              </div>
            ))}
            {input.data.length < input.maxitems && (
              <button
                type="button"
                class="small"
                onClick={() => update((d) => void d.Inputs[node]!.data.push({ ...structuredClone(template.Inputs[node]!.data[0] ?? { name: '' }), name: '' }))}>
                {t('Add an item')}
              </button>
            )}
            <FieldError id={`in-${node}`} errors={errors} />
          </fieldset>
        ))}

        <h2>{t('Parameters')}</h2>
        {toolNodes.length === 0 && <p class="muted">{t('None')}</p>}
        {toolNodes.map(([node, group]) => (
          <fieldset key={node}>
            <legend>
              {group.alias || node} <code class="muted">{node}</code>
            </legend>
            {Object.entries(group.parameters).map(([pname, p]) => (
              <ParameterField
                key={pname}
                id={paramId(node, pname)}
                name={pname}
                spec={p}
                error={errors[paramId(node, pname)]}
                onChange={(value) => {
                  update((d) => void (d.Parameters[node]!.parameters[pname]!.value = value));
                  clearError(paramId(node, pname));
                }}
              />
            ))}
          </fieldset>
        ))}

        <h2>{t('Outputs')}</h2>
        {outputs.length === 0 && <p class="muted">{t('None')}</p>}
        {outputs.map(([node, output]) => (
          <fieldset key={node}>
            <legend>
              {output.alias || node} <code class="muted">{node}</code>
            </legend>
            {output.data.map((item, i) => (
              <div class="field" key={i}>
                <label for={outputId(node, i)}>{output.data.length > 1 ? t('Name of item {n}', { n: i + 1 }) : t('Name')}</label>
                <input
                  id={outputId(node, i)}
                  value={item.name ?? ''}
                  spellcheck={false}
                  placeholder={t('generated: /home/{user}/<task name>/{node}.{format}', { user, node, format: output.formats[0] ?? 'data' })}
                  aria-invalid={errors[outputId(node, i)] !== undefined}
                  aria-describedby={`${outputId(node, i)}-hint${errors[outputId(node, i)] ? ` ${outputId(node, i)}-error` : ''}`}
                  onInput={(e) => {
                    const value = e.currentTarget.value;
                    update((d) => void (d.Outputs[node]!.data[i]!.name = value));
                    clearError(outputId(node, i));
                  }}
                />
                <small class="hint" id={`${outputId(node, i)}-hint`}>
                  {output.formats.length > 0 ? t('Formats: {f}.', { f: output.formats.join(', ') }) : ''}
                </small>
                <FieldError id={outputId(node, i)} errors={errors} />
              </div>
            ))}
          </fieldset>
        ))}
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? t('Starting…') : t('Start task')}
          </button>
        </div>
      </form>
      {picking && (
        <DataPicker
          formats={values.Inputs[picking.node]?.formats ?? []}
          onPick={(picked) => {
            const { node, index } = picking;
            update((d) => void (d.Inputs[node]!.data[index]!.name = picked));
            clearError(inputId(node, index));
            setPicking(undefined);
            requestAnimationFrame(() => document.getElementById(inputId(node, index))?.focus());
          }}
          onClose={() => setPicking(undefined)}
        />
      )}
    </section>
  );
}

function FieldError({ id, errors }: { id: string; errors: Errors }) {
  const message = errors[id];
  if (message === undefined) return null;
  return (
    <p class="field-error" id={`${id}-error`}>
      {message}
    </p>
  );
}

/** A parameter's value in a text field: none is empty; a value of another shape than the template says, as JSON. */
const valueText = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : typeof value === 'string'
      ? value
      : typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : JSON.stringify(value);

const kindOf = (type: string): 'integer' | 'number' | 'flag' | 'string' =>
  ['integer', 'int'].includes(type)
    ? 'integer'
    : ['number', 'float'].includes(type)
      ? 'number'
      : ['flag', 'boolean', 'bool'].includes(type)
        ? 'flag'
        : 'string';

function ParameterField({
  id,
  name,
  spec,
  error,
  onChange,
}: {
  id: string;
  name: string;
  spec: TemplateParameter;
  error: string | undefined;
  onChange: (value: unknown) => void;
}) {
  const kind = kindOf(spec.type);
  const fixed = spec.variable === false;
  const hintId = `${id}-hint`;
  const describedBy =
    [spec.hint || fixed || spec.minvalue !== undefined || spec.maxvalue !== undefined ? hintId : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') ||
    undefined;
  const range =
    spec.minvalue !== undefined || spec.maxvalue !== undefined ? t('From {min} to {max}.', { min: spec.minvalue ?? '−∞', max: spec.maxvalue ?? '∞' }) : '';
  const typeLabel = t(kind);
  if (kind === 'flag') {
    return (
      <div class="field check">
        <input
          id={id}
          type="checkbox"
          checked={spec.value === true || spec.value === 'true'}
          disabled={fixed}
          onChange={(e) => onChange(e.currentTarget.checked)}
          aria-describedby={describedBy}
          aria-invalid={error !== undefined}
        />
        <label for={id}>
          <code>{name}</code> <span class="muted">({typeLabel})</span>
        </label>
        <small class="hint" id={hintId}>
          {[spec.hint, fixed ? t('Fixed by the workflow.') : ''].filter(Boolean).join(' · ')}
        </small>
        {error && (
          <p class="field-error" id={`${id}-error`}>
            {error}
          </p>
        )}
      </div>
    );
  }
  return (
    <div class="field">
      <label for={id}>
        <code>{name}</code> <span class="muted">({typeLabel})</span>
        {spec.required ? <span aria-hidden="true"> *</span> : null}
      </label>
      <input
        id={id}
        type={kind === 'string' ? 'text' : 'number'}
        class={kind === 'string' ? 'text-value' : 'number-value'}
        step={kind === 'integer' ? 1 : kind === 'number' ? 'any' : undefined}
        min={spec.minvalue}
        max={spec.maxvalue}
        value={valueText(spec.value)}
        disabled={fixed}
        required={spec.required}
        inputMode={kind === 'integer' ? 'numeric' : kind === 'number' ? 'decimal' : undefined}
        aria-invalid={error !== undefined}
        aria-describedby={describedBy}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      <small class="hint" id={hintId}>
        {[spec.hint, range, fixed ? t('Fixed by the workflow.') : ''].filter(Boolean).join(' · ')}
      </small>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** The name's format: the longest accepted format it ends with (`x.fastq.gz` is fastq.gz, not gz). */
function hasFormat(name: string, formats: string[]): boolean {
  const lower = name.toLowerCase();
  return formats.length === 0 || formats.some((f) => lower.endsWith(`.${f.toLowerCase()}`));
}

/** What the browser can check before sending: required items, item counts, formats, parameter types and ranges. */
function validate(values: RunTemplate): Errors {
  const errors: Errors = {};
  for (const [node, input] of Object.entries(values.Inputs)) {
    const filled = input.data.filter((d) => (d.name ?? '').trim() !== '');
    input.data.forEach((d, i) => {
      const value = (d.name ?? '').trim();
      if (value === '') {
        if (input.required || input.data.length > 1) errors[inputId(node, i)] = t('Choose a data item.');
      } else if (!hasFormat(value, input.formats))
        errors[inputId(node, i)] = t('{name} is not of an accepted format ({f}).', { name: value, f: input.formats.join(', ') });
    });
    // A count the items' own errors do not already explain: too few slots for the minimum, or too many items.
    if ((filled.length > 0 || input.required) && filled.length < input.minitems && input.data.length < input.minitems)
      errors[`in-${node}`] = t('Give at least {n} item(s).', { n: input.minitems });
    if (filled.length > input.maxitems) errors[`in-${node}`] = t('Give at most {n} item(s).', { n: input.maxitems });
  }
  for (const [node, group] of Object.entries(values.Parameters)) {
    for (const [name, spec] of Object.entries(group.parameters ?? {})) {
      if (spec.variable === false) continue;
      const problem = parameterProblem(spec);
      if (problem) errors[paramId(node, name)] = problem;
    }
  }
  return errors;
}

function parameterProblem(spec: TemplateParameter): string | undefined {
  const kind = kindOf(spec.type);
  if (kind === 'flag' || kind === 'string') {
    if (spec.required && kind === 'string' && (spec.value === '' || spec.value === null || spec.value === undefined)) return t('A value is required.');
    return undefined;
  }
  const text = valueText(spec.value).trim();
  if (text === '') return spec.required ? t('A value is required.') : undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) return t('Enter a number.');
  if (kind === 'integer' && !Number.isInteger(n)) return t('Enter a whole number.');
  if (spec.minvalue !== undefined && n < spec.minvalue) return t('The smallest value is {n}.', { n: spec.minvalue });
  if (spec.maxvalue !== undefined && n > spec.maxvalue) return t('The largest value is {n}.', { n: spec.maxvalue });
  return undefined;
}

/** The template with typed parameter values and without the empty input items of optional inputs. */
function prepared(values: RunTemplate): RunTemplate {
  const out = structuredClone(values);
  for (const input of Object.values(out.Inputs)) {
    const filled = input.data.filter((d) => (d.name ?? '').trim() !== '').map((d) => ({ ...d, name: d.name.trim() }));
    input.data = filled.length > 0 ? filled : input.data.slice(0, 1);
  }
  for (const group of Object.values(out.Parameters)) {
    for (const spec of Object.values(group.parameters ?? {})) {
      const kind = kindOf(spec.type);
      if ((kind === 'integer' || kind === 'number') && typeof spec.value === 'string') spec.value = spec.value.trim() === '' ? null : Number(spec.value);
      if (kind === 'flag' && typeof spec.value === 'string') spec.value = spec.value === 'true';
    }
  }
  return out;
}

/**
 * The form field a refusal concerns, from the member its reason names: `parameters.Inputs.<node>.data[<i>].name`,
 * `parameters.Parameters.<node>.parameters.<name>`, `parameters.Outputs.<node>.data[<i>]`, `task_name`.
 */
export function fieldOf(message: string): string | undefined {
  let m = /parameters\.Inputs\.([\w-]+)\.data\[(\d+)\]/.exec(message);
  if (m) return inputId(m[1]!, Number(m[2]));
  m = /parameters\.Inputs\.([\w-]+)/.exec(message);
  if (m) return `in-${m[1]}`;
  m = /parameters\.Parameters\.([\w-]+)\.parameters\.([\w-]+)/.exec(message);
  if (m) return paramId(m[1]!, m[2]!);
  m = /parameters\.Outputs\.([\w-]+)\.data\[(\d+)\]/.exec(message);
  if (m) return outputId(m[1]!, Number(m[2]));
  m = /parameters\.Outputs\.([\w-]+)/.exec(message);
  if (m) return outputId(m[1]!, 0);
  if (/task_name/.test(message)) return 'task-name';
  return undefined;
}
