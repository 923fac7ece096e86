import type { Logger } from '../ground/Logger';
import type { Runs } from './Runs';

/** Says when stopped processes on this host left runs `running`, and how to resume them. */
export async function reportAbandonedRuns(runs: Runs, logger: Logger): Promise<void> {
  const abandoned = await runs.abandonedHere().catch(() => []);
  if (abandoned.length === 0) return;
  const ids = abandoned
    .slice(0, 3)
    .map((row) => `"${row.id}"`)
    .join(', ');
  const more = abandoned.length > 3 ? ` and ${abandoned.length - 3} more` : '';
  logger.warn(
    `${abandoned.length} run(s) were left running by processes on this host that stopped (${ids}${more}); ` +
      'calling a workflow with an id resumes its run at once; runtime.startWorker() or runtime.recover() resumes them all',
  );
}
