/**
 * A job's wait (`waiting_for`, docs/tasks.md "Why a job waits") in the console's language: the server writes it in
 * English, in a few fixed forms (src/domain/tasks/waiting.ts); each known form is read and said again through t()
 * (in English, the very text sent), anything else is shown as sent.
 */
import { t } from './i18n.js';

/** "2 CPUs (1 free)" or "900 MB of memory (512 MB free)": one part of a resource wait. */
function resourcePart(part: string): string | undefined {
  const cpus = /^(\d+) (CPUs?) \((\d+) free\)$/.exec(part);
  if (cpus) return cpus[2] === 'CPU' ? t('{n} CPU ({free} free)', { n: cpus[1]!, free: cpus[3]! }) : t('{n} CPUs ({free} free)', { n: cpus[1]!, free: cpus[3]! });
  const memory = /^(\d+(?:\.\d+)? [MG]B) of memory \((\d+(?:\.\d+)? [MG]B) free\)$/.exec(part);
  if (memory) return t('{size} of memory ({free} free)', { size: memory[1]!, free: memory[2]! });
  return undefined;
}

const FORMS: Array<[RegExp, (m: RegExpExecArray) => string | undefined]> = [
  [/^waiting for upstream job (.+)$/, (m) => t('waiting for upstream job {nodes}', { nodes: m[1]! })],
  [/^waiting for upstream jobs (.+)$/, (m) => t('waiting for upstream jobs {nodes}', { nodes: m[1]! })],
  [/^waiting for a worker to take the task$/, () => t('waiting for a worker to take the task')],
  [/^waiting for its worker to start it$/, () => t('waiting for its worker to start it')],
  [/^waiting for the scheduled start, (.+)$/, (m) => t('waiting for the scheduled start, {time}', { time: m[1]! })],
  [/^waiting for its image (\S+) to be pulled$/, (m) => t('waiting for its image {image} to be pulled', { image: m[1]! })],
  [/^waiting for Slurm to start it: (.+)$/, (m) => t('waiting for Slurm to start it: {why}', { why: m[1]! })],
  [/^waiting for its turn to be submitted to Slurm (.+)$/, (m) => t('waiting for its turn to be submitted to Slurm {why}', { why: m[1]! })],
  [
    /^waiting for (.+)$/,
    (m) => {
      const parts = m[1]!.split(' and ').map(resourcePart);
      return parts.every((p) => p !== undefined) ? t('waiting for {what}', { what: parts.join(t(' and ')) }) : undefined;
    },
  ],
];

export function waitText(wait: string): string {
  for (const [pattern, say] of FORMS) {
    const match = pattern.exec(wait);
    const said = match && say(match);
    if (said) return said;
  }
  return wait;
}
