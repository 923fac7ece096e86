import { RetriesExhaustedError } from '../../../../src/errors/RetriesExhaustedError';
import { RetryableError } from '../../../../src/errors/RetryableError';
import { realClock } from '../../../../src/ground/Clock';
import { resolveRetryPolicy } from '../../../../src/policies/RetryPolicy';
import type { LimiterGate } from '../../../../src/runtime/execution/LimiterGate';
import { RunState } from '../../../../src/runtime/execution/RunState';
import { StepAttempts, type AttemptPlan } from '../../../../src/runtime/execution/StepAttempts';
import { openMemoryStore, type MemoryStore } from './memoryRun';

/** No step here names a limiter: the gate is never asked. */
const noLimiters = {} as LimiterGate;

describe('StepAttempts', () => {
  let db: MemoryStore;
  let attempts: StepAttempts;
  beforeEach(async () => {
    db = await openMemoryStore();
    attempts = new StepAttempts({
      ...{ store: db.store, codec: db.codec, clock: realClock, events: db.events },
      ...{ hooks: {}, lifecycle: db.lifecycle, durableDelayMs: 30_000, limiters: noLimiters },
    });
  });
  afterEach(() => db.close());

  const plan = (run: RunState, body: AttemptPlan['body'], maxAttempts = 3): AttemptPlan => ({
    run,
    point: { runId: run.runId, seq: 0, step: 'fetch', target: 'Agent.fetch' },
    policy: resolveRetryPolicy({ maxAttempts, backoff: { fixed: 1 } }, 'unit'),
    timeoutMs: undefined,
    storedKey: null,
    body,
  });

  it('retries a transient failure and stores each failed attempt before waiting', async () => {
    const run = await db.claimedRun('att-1');
    let calls = 0;
    const outcome = await attempts.run(
      plan(run, () =>
        ++calls < 3 ? Promise.reject(new RetryableError('503')) : Promise.resolve('ok'),
      ),
    );
    expect(outcome).toEqual({ ok: true, value: 'ok', attempts: 3 });
    const stored = (await db.store.loadHistory('att-1')).attempts;
    expect(stored.map((a) => a.attempt)).toEqual([1, 2]);
  });

  it('fails fast on an error the classifier calls permanent: one attempt, nothing stored', async () => {
    const run = await db.claimedRun('att-2');
    let calls = 0;
    const outcome = await attempts.run(
      plan(run, () => {
        calls++;
        return Promise.reject(new TypeError('bad input'));
      }),
    );
    expect(calls).toBe(1);
    expect(outcome).toMatchObject({ ok: false, attempts: 1, error: expect.any(TypeError) });
    expect((await db.store.loadHistory('att-2')).attempts).toEqual([]);
  });

  it('gives RetriesExhaustedError, with the last error as cause, once the budget is spent', async () => {
    const run = await db.claimedRun('att-3');
    const outcome = await attempts.run(
      plan(run, () => Promise.reject(new RetryableError('down')), 2),
    );
    expect(outcome.ok).toBe(false);
    const { error } = outcome as { error: RetriesExhaustedError };
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error.attempts).toBe(2);
    expect((error.cause as Error).message).toBe('down');
  });

  it('continues the count a crashed process stored: a resumed step does not get a fresh budget', async () => {
    const first = await db.claimedRun('att-4');
    const failing = () => Promise.reject(new RetryableError('down'));
    await attempts.run(plan(first, failing, 2));
    const { attempts: stored } = await db.store.loadHistory('att-4');
    const resumed = new RunState(first.claim, first.call, new Map(), new Map([[0, stored]]));
    let calls = 0;
    const outcome = await attempts.run(
      plan(
        resumed,
        () => {
          calls++;
          return Promise.reject(new RetryableError('still down'));
        },
        2,
      ),
    );
    // Attempt 1 was stored before the crash: only attempt 2 is left of a budget of 2.
    expect(stored.map((a) => a.attempt)).toEqual([1]);
    expect(calls).toBe(1);
    expect((outcome as { error: RetriesExhaustedError }).error.attempts).toBe(2);
  });
});
