/**
 * What a job that has not started waits for (docs/tasks.md, "Why a job waits"): a line under its state, and a fact in
 * its panel. The server says it in English, as it writes the engine's reasons; reasonText says it in Chinese.
 */
import { reasonText, t } from '../i18n.js';
import type { Job } from '../types.js';

/** The wait under a job's state in the jobs table; nothing for a job that waits for nothing. */
export function WaitNote({ job }: { job: Pick<Job, 'waiting_for'> }) {
  if (!job.waiting_for) return null;
  return <div class="wait-note">{reasonText(job.waiting_for)}</div>;
}

/** The wait as a fact of the job's panel (a dt and a dd of its list), unless its reason above is that very wait. */
export function WaitFact({ job }: { job: Pick<Job, 'waiting_for' | 'reason'> }) {
  if (!job.waiting_for || job.waiting_for === job.reason) return null;
  return (
    <>
      <dt>{t('Waiting')}</dt>
      <dd class="wait-fact">{reasonText(job.waiting_for)}</dd>
    </>
  );
}
