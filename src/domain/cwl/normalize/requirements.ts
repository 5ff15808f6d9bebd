import { positionOf } from '../document/positions.js';
import { describeValue, isPlainObject } from '../document/shorthands.js';
import type { ExtensionHint, Requirement, ResourceRequirement } from '../model.js';
import { nearest } from '../suggest.js';
import { CWL_NAMESPACE, expandPrefix } from '../uri.js';
import { LOAD_LISTING } from './bindings.js';
import { checkFields } from './check-fields.js';
import { REQUIREMENT_FIELDS, V10_EXTENSION_CLASSES, versionAtLeast } from './fields.js';
import { readInitialWorkDir, readPackages, readSchemaDefTypes } from './requirement-parts.js';
import { assignDefined, RecordReader, type Json } from './read.js';

const RESOURCE_FIELDS = ['coresMin', 'coresMax', 'ramMin', 'ramMax', 'tmpdirMin', 'tmpdirMax', 'outdirMin', 'outdirMax'] as const;

/**
 * `requirements` or `hints` of a process or step. A class CWL does not define is an error in
 * `requirements` (a runner must not ignore a requirement) and a warning in `hints`, where it is
 * kept as an ExtensionHint. Classes CWL defines are checked the same way in both, as cwltool does.
 */
export function readRequirements(owner: RecordReader, key: 'requirements' | 'hints'): { known: Requirement[]; extensions: ExtensionHint[] } {
  const known: Requirement[] = [];
  const extensions: ExtensionHint[] = [];
  const list = owner.list(key) ?? [];
  list.forEach((entry, index) => {
    const at = positionOf(list, index);
    if (!isPlainObject(entry)) return owner.context.diagnostics.error(`each of '${key}' must be an object with a class, not ${describeValue(entry)}`, at);
    const cls = className(entry, owner);
    const upgraded = owner.context.version === 'v1.0' && V10_EXTENSION_CLASSES[expandPrefix(String(entry.class), owner.context.namespaces)] !== undefined;
    if (cls === undefined) return owner.context.diagnostics.error(`an entry of '${key}' of ${owner.what} has no class`, at);
    const spec = REQUIREMENT_FIELDS[cls];
    if (spec === undefined) {
      const suggestion = nearest(cls, Object.keys(REQUIREMENT_FIELDS));
      const message = `unknown ${key === 'hints' ? 'hint' : 'requirement'} class '${cls}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`;
      // A runner must not ignore a requirement: one of a class gdflow does not know is a feature it does not support.
      if (key === 'requirements') return owner.context.diagnostics.unsupported(cls, message, at);
      owner.context.diagnostics.warn(`${message} (kept, not used)`, at);
      const { class: _, ...fields } = entry;
      return extensions.push(at ? { class: cls, fields, at } : { class: cls, fields });
    }
    if (key === 'requirements' && !upgraded && !versionAtLeast(owner.context.version, spec.since)) {
      return owner.context.diagnostics.error(`requirement ${cls} is not part of CWL ${owner.context.version} (it was added in ${spec.since})`, at);
    }
    const requirement = readRequirement(cls, new RecordReader(entry, cls, owner.context));
    if (requirement) known.push(at ? { ...requirement, at } : requirement);
  });
  return { known, extensions };
}

/** The class as a CWL term (`cwl:DockerRequirement` and its full URI included), or the expanded URI of another. */
function className(entry: Json, owner: RecordReader): string | undefined {
  if (typeof entry.class !== 'string') return undefined;
  const uri = expandPrefix(entry.class, owner.context.namespaces);
  if (owner.context.version === 'v1.0' && V10_EXTENSION_CLASSES[uri]) return V10_EXTENSION_CLASSES[uri];
  return uri.startsWith(CWL_NAMESPACE) ? uri.slice(CWL_NAMESPACE.length) : uri;
}

function readRequirement(cls: string, record: RecordReader): Requirement | undefined {
  checkFields(record, REQUIREMENT_FIELDS[cls]!.fields);
  switch (cls) {
    case 'InlineJavascriptRequirement':
      return { class: cls, expressionLib: record.strings('expressionLib') ?? [] };
    case 'SchemaDefRequirement':
      return { class: cls, types: readSchemaDefTypes(record) };
    case 'LoadListingRequirement':
      return assignDefined<Requirement>({ class: cls }, { loadListing: record.oneOf('loadListing', LOAD_LISTING) });
    case 'DockerRequirement': {
      const fields = ['dockerPull', 'dockerLoad', 'dockerFile', 'dockerImport', 'dockerImageId', 'dockerOutputDirectory'] as const;
      return assignDefined<Requirement>({ class: cls }, Object.fromEntries(fields.map((f) => [f, record.string(f)])));
    }
    case 'SoftwareRequirement':
      return { class: cls, packages: readPackages(record) };
    case 'InitialWorkDirRequirement': {
      const listing = readInitialWorkDir(record);
      return listing && { class: cls, listing };
    }
    case 'EnvVarRequirement':
      return { class: cls, envDef: readEnvDef(record) };
    case 'ResourceRequirement':
      return readResources(record);
    case 'WorkReuse': {
      const enableReuse = record.required('enableReuse') === undefined ? undefined : record.booleanOrExpression('enableReuse');
      return enableReuse === undefined ? undefined : { class: cls, enableReuse };
    }
    case 'NetworkAccess': {
      const networkAccess = record.required('networkAccess') === undefined ? undefined : record.booleanOrExpression('networkAccess');
      return networkAccess === undefined ? undefined : { class: cls, networkAccess };
    }
    case 'InplaceUpdateRequirement': {
      const inplaceUpdate = record.required('inplaceUpdate') === undefined ? undefined : record.boolean('inplaceUpdate');
      return inplaceUpdate === undefined ? undefined : { class: cls, inplaceUpdate };
    }
    case 'ToolTimeLimit': {
      const timelimit = record.required('timelimit') === undefined ? undefined : record.numberOrExpression('timelimit', false);
      if (typeof timelimit === 'number' && timelimit < 0)
        record.error(`'timelimit' of ToolTimeLimit must not be negative (0 means no limit), not ${timelimit}`, 'timelimit');
      return timelimit === undefined ? undefined : { class: cls, timelimit };
    }
    default:
      return { class: cls } as Requirement;
  }
}

function readEnvDef(record: RecordReader): { envName: string; envValue: string }[] {
  const list = record.required('envDef') === undefined ? [] : (record.list('envDef') ?? []);
  return list.flatMap((item, index) => {
    if (!isPlainObject(item)) {
      record.context.diagnostics.error(`each envDef must be an object, not ${describeValue(item)}`, positionOf(list, index));
      return [];
    }
    const def = new RecordReader(item, 'an envDef', record.context);
    checkFields(
      def,
      new Map([
        ['envName', { since: 'v1.0' }],
        ['envValue', { since: 'v1.0' }],
      ]),
    );
    const envName = def.requiredString('envName');
    const envValue = def.requiredString('envValue');
    return envName === undefined || envValue === undefined ? [] : [{ envName, envValue }];
  });
}

/** v1.2 allows fractions (`coresMin: 0.5`); v1.1 whole numbers; v1.0 also any string. */
function readResources(record: RecordReader): ResourceRequirement {
  const version = record.context.version;
  const amounts = Object.fromEntries(
    RESOURCE_FIELDS.map((field) => {
      if (version === 'v1.0' && typeof record.get(field) === 'string') return [field, record.string(field)];
      return [field, record.numberOrExpression(field, version === 'v1.2')];
    }),
  );
  return assignDefined<ResourceRequirement>({ class: 'ResourceRequirement' }, amounts);
}
