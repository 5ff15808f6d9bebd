import { shortname } from '../uri.js';

/**
 * A process's name as a gdflow tool or workflow name (3 to 128 letters, digits, `-` and `_`, a letter first): its id's
 * or file's last part without the extension (`#revtool.cwl` and `revtool.cwl` are `revtool`), other characters as `_`.
 */
export function nameFor(id: string): string {
  const base = shortname(id)
    .replace(/\.(cwl|ya?ml|json)$/i, '')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const name = /^[A-Za-z]/.test(base) ? base : `cwl_${base}`;
  return (name.length < 3 ? `${name}_cwl` : name).slice(0, 128);
}
