import { isExtensionKey } from '../document/identifiers.js';
import { expandPrefix, isAbsoluteUri } from '../uri.js';
import { nearest } from '../suggest.js';
import type { CwlVersion } from '../model.js';
import { versionAtLeast, type FieldSpec, type FieldTable } from './fields.js';
import type { RecordReader } from './read.js';

/**
 * Checks the field names of a record against its table for the document's version, as schema-
 * salad validates: an unknown field is an error naming the nearest known one; a field from a later
 * (or only an earlier) version is an error naming the version; identifiers (`id`, `name`) and
 * `$`-directives are always allowed; a field with a namespace prefix is an extension, returned
 * keyed by its expanded URI (with a warning when the prefix is not declared in `$namespaces`).
 */
export function checkFields(record: RecordReader, fields: FieldTable): Record<string, unknown> {
  const version = record.context.version;
  const extensions: Record<string, unknown> = {};
  for (const key of Object.keys(record.node)) {
    if (key === 'id' || key === 'name' || key.startsWith('$') || key.startsWith('@')) continue;
    if (isExtensionKey(key)) {
      const uri = expandPrefix(key, record.context.namespaces);
      if (uri === key && !isAbsoluteUri(key)) {
        record.warn(`field '${key}' of ${record.what} has a namespace prefix that $namespaces does not declare`, key);
      }
      extensions[uri] = record.node[key];
      continue;
    }
    const spec = fields.get(key);
    if (spec === undefined) {
      const valid = [...fields].filter(([, s]) => inVersion(s, version)).map(([name]) => name);
      const suggestion = nearest(key, valid);
      record.error(
        `invalid field '${key}' in ${record.what}` +
          (suggestion ? `; did you mean '${suggestion}'?` : `, expected one of: ${valid.map((n) => `'${n}'`).join(', ')}`),
        key,
      );
    } else if (!inVersion(spec, version) && !versionAtLeast(version, spec.since)) {
      record.error(`field '${key}' of ${record.what} is not part of CWL ${version} (it was added in ${spec.since})`, key);
    } else if (!inVersion(spec, version)) {
      record.error(`field '${key}' of ${record.what} is not part of CWL ${version} (only up to ${spec.until})`, key);
    }
  }
  return extensions;
}

const inVersion = (spec: FieldSpec, version: CwlVersion): boolean =>
  versionAtLeast(version, spec.since) && (spec.until === undefined || versionAtLeast(spec.until, version));
