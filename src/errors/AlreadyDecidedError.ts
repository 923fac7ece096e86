import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * A decision (the signal `approve:<toolCallId>`) was refused because the request it answers
 * was already decided: the first decision wins, atomically, and a later one — a second
 * manager's click, a reject racing an approve — is never stored for a later wait. It names
 * who decided first (`decidedBy`, or `by`, of that decision's payload; "unknown" without
 * either) and when. The console answers it with 409.
 *
 * @example
 * ```ts
 * try { await runtime.signal(runId, 'approve:call_4', { approved: true, decidedBy: 'dana' }); }
 * catch (e) { if (isAlreadyDecidedError(e)) return `${e.decidedBy} was first`; throw e; }
 * ```
 */
export class AlreadyDecidedError extends WaymarkError {
  declare readonly code: 'ALREADY_DECIDED';

  constructor(
    readonly runId: string,
    /** The signal refused, `approve:<toolCallId>`. */
    readonly signal: string,
    readonly decidedBy: string,
    readonly decidedAt: Date,
  ) {
    super(
      'ALREADY_DECIDED',
      `signal "${signal}" to run "${runId}" is refused: that request was already decided by ` +
        `${decidedBy} at ${decidedAt.toISOString()}`,
    );
  }
}

brand(AlreadyDecidedError, 'AlreadyDecidedError');

/** True when `error` is an {@link AlreadyDecidedError}. */
export function isAlreadyDecidedError(error: unknown): error is AlreadyDecidedError {
  return hasBrand(error, 'AlreadyDecidedError');
}
