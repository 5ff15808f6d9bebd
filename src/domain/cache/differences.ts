import { canonicalJson, type CacheParts } from './key.js';
import type { ShellToken } from './shell-words.js';

/** One way two jobs' keys differ, in words a user can act on. */
export interface KeyDifference {
  part: 'image' | 'image_digest' | 'entrypoint' | 'environment' | 'network' | 'command' | 'input' | 'output' | 'streams';
  /** The input's or the variable's name, for those parts. */
  name?: string;
  /** This job's value and the other job's (null where one has none). */
  this: unknown;
  other: unknown;
  message: string;
}

const short = (hash: unknown) => (typeof hash === 'string' ? hash.slice(0, 12) : String(hash));
const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** Exactly which parts of two keys differ (empty: the same key). */
export function keyDifferences(mine: CacheParts, other: CacheParts): KeyDifference[] {
  const out: KeyDifference[] = [];
  if (mine.image !== other.image) {
    out.push({ part: 'image', this: mine.image, other: other.image, message: `image ${mine.image || '(none)'}, not ${other.image || '(none)'}` });
  } else if (mine.imageDigest !== other.imageDigest) {
    const message = `image ${mine.image} is now ${short(mine.imageDigest)}, was ${short(other.imageDigest)}`;
    out.push({ part: 'image_digest', this: mine.imageDigest, other: other.imageDigest, message });
  }
  if (mine.entrypoint !== other.entrypoint) {
    const message = mine.entrypoint ? "the command goes to the image's ENTRYPOINT, the other's did not" : "the other's command went to the image's ENTRYPOINT";
    out.push({ part: 'entrypoint', this: mine.entrypoint, other: other.entrypoint, message });
  }
  for (const name of new Set([...Object.keys(mine.env), ...Object.keys(other.env)])) {
    const a = mine.env[name] ?? null;
    const b = other.env[name] ?? null;
    if (a !== b) out.push({ part: 'environment', name, this: a, other: b, message: `environment ${name}=${JSON.stringify(a)}, was ${JSON.stringify(b)}` });
  }
  if (mine.network !== other.network) {
    out.push({
      part: 'network',
      this: mine.network,
      other: other.network,
      message: `network access ${mine.network ? 'on' : 'off'}, was ${other.network ? 'on' : 'off'}`,
    });
  }
  if (!same(mine.command, other.command)) {
    out.push({ part: 'command', this: mine.command, other: other.command, message: commandMessage(mine.command, other.command) });
  }
  for (const key of new Set([...Object.keys(mine.inputs), ...Object.keys(other.inputs)])) {
    const a = mine.inputs[key] ?? null;
    const b = other.inputs[key] ?? null;
    if (a === b) continue;
    // Named as this job's command saw it (`<in1>/ref.fa` is /var/data/inputs/reference/ref.fa for a tool job).
    const path = placeOf(key, a === null ? other : mine);
    const message = a === null ? `input ${path} is gone` : b === null ? `input ${path} is new` : `input ${path} changed (${short(a)}, was ${short(b)})`;
    out.push({ part: 'input', name: path, this: a, other: b, message });
  }
  if (!same(mine.outputs, other.outputs)) {
    out.push({ part: 'output', this: mine.outputs, other: other.outputs, message: `outputs ${mine.outputs.join(', ')}; were ${other.outputs.join(', ')}` });
  }
  if (!same(mine.streams, other.streams)) out.push({ part: 'streams', this: mine.streams, other: other.streams, message: 'the streams go elsewhere' });
  return out;
}

/** An input's name in the key as the job's command saw it. */
function placeOf(key: string, parts: CacheParts): string {
  const slash = key.indexOf('/');
  const dir = slash < 0 ? key : key.slice(0, slash);
  const place = parts.inputPlaces?.[dir];
  return place === undefined ? key : `${place}${key.slice(dir.length)}`;
}

const text = (token: ShellToken): string => ('w' in token ? token.w : 'op' in token ? token.op : `#${token.c}`);

function commandMessage(mine: CacheParts['command'], other: CacheParts['command']): string {
  if ('tokens' in mine && 'tokens' in other) {
    const a = mine.tokens.map(text);
    const b = other.tokens.map(text);
    const at = a.findIndex((word, i) => word !== b[i]);
    const index = at < 0 ? Math.min(a.length, b.length) : at;
    return `the command differs at word ${index + 1}: ${JSON.stringify(a[index] ?? null)}, was ${JSON.stringify(b[index] ?? null)}`;
  }
  if ('tokens' in mine || 'tokens' in other) return 'the command differs (one is plain words and redirections, the other a shell script)';
  return mine.shell === other.shell ? 'the command differs' : `the command differs (run by ${mine.shell}, was ${other.shell})`;
}
