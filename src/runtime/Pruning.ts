import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import type { Clock } from '../ground/Clock';
import { parseDuration } from '../ground/Duration';
import type { RunPruner, PruneResult } from '../store/RunPruner';
import type { TerminalStatus } from '../model/RunStatus';
import { timeOf, type DateOrDuration } from './execution/RunTiming';

export type { PruneResult } from '../store/RunPruner';

/** Options of `runtime.prune()`. */
export interface PruneOptions {
  /** Delete runs that ended longer ago than this (a duration), or before this `Date`. */
  olderThan: DateOrDuration;
  /** Which ended runs; default all three: `completed`, `failed`, `cancelled`. */
  status?: TerminalStatus | TerminalStatus[];
  /** Only runs of this workflow (or these). */
  workflow?: string | string[];
  /** Runs deleted per transaction; default 500. */
  batchSize?: number;
}

const ENDED: readonly TerminalStatus[] = ['completed', 'failed', 'cancelled'];

/** `runtime.prune()`: checks its options, then deletes in batches under the sweeper lease. */
export async function pruneRuns(
  pruner: RunPruner,
  clock: Clock,
  options: PruneOptions,
): Promise<PruneResult> {
  if (options === null || typeof options !== 'object' || options.olderThan === undefined) {
    throw new InvalidArgumentError('prune(): olderThan', "is required, e.g. { olderThan: '30d' }");
  }
  const now = clock.now();
  const olderThan = options.olderThan;
  const before =
    olderThan instanceof Date
      ? timeOf(olderThan, now, 'prune(): olderThan')!
      : now - parseDuration(olderThan, 'prune(): olderThan');
  const statuses = [options.status ?? ENDED].flat();
  for (const status of statuses) {
    if (!ENDED.includes(status)) {
      throw new InvalidArgumentError(
        'prune(): status',
        `must be an ended status (${ENDED.join(', ')}), got ${JSON.stringify(status)}`,
      );
    }
  }
  const batchSize = options.batchSize ?? 500;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
    throw new InvalidArgumentError('prune(): batchSize', `must be 1 to 10000, got ${batchSize}`);
  }
  const workflows = options.workflow === undefined ? undefined : [options.workflow].flat();
  return pruner.prune({ before, statuses, workflows, batchSize });
}
