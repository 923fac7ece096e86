import { types } from 'node:util';
import { NonDeterminismError, RunCancelledError, isWaymarkError, storedOutcomeOf } from 'waymark';
import { markStoredOutcome } from '../../../src/errors/storedOutcomeNote';

const AT = new Date('2026-12-01T10:00:00.000Z');

describe('markStoredOutcome', () => {
  it('copies the error with one line appended, leaving the error it was given as it was', () => {
    const error = new RunCancelledError('po-1', 'duplicate order');
    const marked = markStoredOutcome(error, { runId: 'po-1', status: 'cancelled', storedAt: AT });
    expect(marked).not.toBe(error);
    expect(marked).toBeInstanceOf(RunCancelledError);
    expect(isWaymarkError(marked, 'RUN_CANCELLED')).toBe(true);
    expect(types.isNativeError(marked)).toBe(true);
    expect((marked as RunCancelledError).reason).toBe('duplicate order');
    expect(error.message).toBe('run "po-1" was cancelled: duplicate order');
    expect(storedOutcomeOf(error)).toBeUndefined();
    expect(storedOutcomeOf(marked)?.error).toBe(error);
  });

  it('tells a parked run to be retried, by the time it parked', () => {
    const error = new NonDeterminismError('po-2', 3, 'charge', 'refund');
    const marked = markStoredOutcome(error, {
      runId: 'po-2',
      status: 'needs_attention',
      storedAt: AT,
    }) as Error;
    expect(marked.message.split('\n')[1]).toBe(
      '↳ run "po-2" is parked in needs_attention since 2026-12-01T10:00:00.000Z; this is its ' +
        'stored outcome, returned without running anything again. To run it again: ' +
        '`waymark retry po-2`, runtime.retry("po-2"), or a new run id',
    );
  });

  it('quotes a run id for the shell and for JavaScript when it needs it', () => {
    const runId = `order "7" for O'Brien`;
    const marked = markStoredOutcome(new Error('declined'), {
      runId,
      status: 'failed',
      storedAt: AT,
    }) as Error;
    expect(marked.message).toContain(`\`waymark retry 'order "7" for O'\\''Brien'\``);
    expect(marked.message).toContain(`runtime.retry(${JSON.stringify(runId)})`);
  });

  it('marks an error without a message with the line alone, and a marked one not again', () => {
    const note = { runId: 'po-3', status: 'failed', storedAt: AT } as const;
    const marked = markStoredOutcome(new Error(), note) as Error;
    expect(marked.message).toMatch(/^↳ run "po-3" failed at /);
    expect(markStoredOutcome(marked, note)).toBe(marked);
  });

  it('leaves a stack that does not start with the message, and a thrown non-Error, as they are', () => {
    const error = new Error('declined');
    error.stack = 'recorded elsewhere';
    const note = { runId: 'po-4', status: 'failed', storedAt: AT } as const;
    expect((markStoredOutcome(error, note) as Error).stack).toBe('recorded elsewhere');
    expect(markStoredOutcome('declined', note)).toBe('declined');
    const thrown = { code: 'DECLINED' };
    expect(markStoredOutcome(thrown, note)).toBe(thrown);
  });
});
