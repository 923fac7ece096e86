import { NonRetryableError, storedOutcomeOf } from 'waymark';
import { Codec } from '../../../../src/codec/Codec';
import { realClock } from '../../../../src/ground/Clock';
import { Lifecycle } from '../../../../src/ground/Lifecycle';
import { localHost, localProcess } from '../../../../src/ground/ProcessIdentity';
import { RunObserver } from '../../../../src/runtime/execution/RunObserver';
import {
  seenToEnd,
  unwrapOutcome,
  type RunOutcome,
} from '../../../../src/runtime/execution/RunOutcome';
import { newRunRowOf, type RunRow } from '../../../../src/store/rows';
import type { RunStore } from '../../../../src/store/RunStore';

const codec = new Codec();
const ENDED_AT = Date.parse('2026-12-01T10:00:00.000Z');

/** Run `r-1` as stored: failed with `error`, or still held by a live holder elsewhere. */
function row(status: 'failed' | 'running'): RunRow {
  const fields = { id: 'r-1', workflow: 'w', version: null, args: '[]', createdAt: 0 };
  const base = newRunRowOf(fields);
  if (status === 'running') {
    return {
      ...base,
      status,
      leaseExpiresAt: Date.now() + 60_000,
      leaseHost: 'elsewhere',
      leaseProcess: 'other:1',
    };
  }
  const error = codec.encode(new NonRetryableError('declined'), 'error');
  return { ...base, status, error, updatedAt: ENDED_AT };
}

/** An observer reading `rows` in turn (the last one again once they run out). */
function observerOf(...rows: RunRow[]): RunObserver {
  const store = { loadRun: () => Promise.resolve(rows.length > 1 ? rows.shift() : rows[0]) };
  const self = { host: localHost(), process: localProcess('unit-observer'), owner: 'unit' };
  return new RunObserver(store as unknown as RunStore, codec, realClock, new Lifecycle(), self);
}

const thrownBy = (outcome: RunOutcome): unknown => {
  try {
    unwrapOutcome(outcome, 'r-1');
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

describe('a run outcome as its caller gets it', () => {
  it('is marked when the first look found the run ended', async () => {
    const outcome = await observerOf(row('failed')).observe('r-1');
    expect(outcome).toMatchObject({ status: 'failed', storedAt: ENDED_AT });
    expect(storedOutcomeOf(thrownBy(outcome))).toMatchObject({
      runId: 'r-1',
      status: 'failed',
      storedAt: new Date(ENDED_AT),
    });
  });

  it('is not marked when the watcher saw the run end at a later look', async () => {
    const outcome = await observerOf(row('running'), row('failed')).observe('r-1');
    expect(outcome).toMatchObject({ status: 'failed', storedAt: null });
    const error = thrownBy(outcome);
    expect(error).toBeInstanceOf(NonRetryableError);
    expect(storedOutcomeOf(error)).toBeUndefined();
  });

  it('seenToEnd drops the mark, and leaves results and waits as they are', () => {
    const error = new Error('declined');
    expect(seenToEnd({ status: 'cancelled', error, storedAt: ENDED_AT })).toEqual({
      status: 'cancelled',
      error,
      storedAt: null,
    });
    const done: RunOutcome = { status: 'completed', result: 1 };
    expect(seenToEnd(done)).toBe(done);
    expect(unwrapOutcome(done, 'r-1')).toBe(1);
  });
});
