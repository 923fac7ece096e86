import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * Unwinds a workflow whose run was released to `waiting` (a long backoff, a timer or a
 * signal). Not a failure: the run resumes in any process once it is due.
 */
export class RunSuspended extends WaymarkError {
  declare readonly code: 'RUN_SUSPENDED';

  constructor(
    readonly runId: string,
    readonly wakeAt: number | null,
  ) {
    super(
      'RUN_SUSPENDED',
      `run "${runId}" is waiting ${wakeAt === null ? 'for a signal' : `until ${new Date(wakeAt).toISOString()}`}`,
    );
  }
}

brand(RunSuspended, 'RunSuspended');

/** True when `error` is a {@link RunSuspended}. */
export function isRunSuspended(error: unknown): error is RunSuspended {
  return hasBrand(error, 'RunSuspended');
}
