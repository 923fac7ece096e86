import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import {
  InvalidRunStateError,
  NonRetryableError,
  RetriesExhaustedError,
  RunCancelledError,
  StepTimeoutError,
  storedOutcomeOf,
  type WaymarkEvents,
} from 'waymark';
import { createTestRuntime, SimulatedCrash, type TestRuntime } from 'waymark/testing';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import { Buyer, HttpError, SupplierScript } from '../support/fixtures/FlakyQuotes';

describe.each(ALL_BACKENDS)('@Retry on %s', (backend) => {
  let db: TestDatabase;
  let runtime: TestRuntime;
  let scope: DependencyContainer;
  let supplier: SupplierScript;
  let n = 0;
  const id = (): string => `${backend}-${++n}-${Date.now()}`;
  const buyer = (): Buyer => scope.resolve(Buyer);

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.drop();
  });
  const start = async (clock: 'real' | 'fake' = 'real'): Promise<void> => {
    scope = rootContainer.createChildContainer();
    supplier = new SupplierScript();
    scope.registerInstance(SupplierScript, supplier);
    runtime = await createTestRuntime({ database: db.url, container: scope, clock });
  };
  afterEach(async () => {
    await runtime.close();
  });

  it('a step that fails with 503 twice then succeeds completes in 3 attempts', async () => {
    await start();
    const q = id();
    supplier.plan(q, new HttpError(503), new HttpError(503));
    const retrying: Array<WaymarkEvents['step.retrying']> = [];
    runtime.on('step.retrying', (e) => retrying.push(e));
    await expect(buyer().buy(q)).resolves.toBe(`quote ${q} on attempt 3`);
    expect(supplier.count(q)).toBe(3);
    expect(new Set(supplier.calls.map((c) => c.key))).toEqual(new Set([`buy-${q}:0`]));
    expect(retrying.map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 20],
      [2, 20],
    ]);
    const [step] = await runtime.history(`buy-${q}`);
    expect(step).toMatchObject({ name: 'quote', status: 'completed', attempts: 3 });
  });

  it('a 400 fails after one attempt with the error itself', async () => {
    await start();
    const q = id();
    supplier.plan(q, new HttpError(400));
    await expect(buyer().buy(q)).rejects.toMatchObject({ name: 'HttpError', status: 400 });
    expect(supplier.count(q)).toBe(1);
    const [step] = await runtime.history(`buy-${q}`);
    expect(step).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: { name: 'HttpError', message: 'HTTP 400' },
    });
  });

  it('retryOn restricts retries to matches and abortOn wins over everything', async () => {
    await start();
    const a = id();
    supplier.plan(a, new HttpError(500), new TypeError('boom'));
    await expect(buyer().buyStrictly(a)).rejects.toBeInstanceOf(TypeError);
    expect(supplier.count(a)).toBe(2);
    const b = id();
    supplier.plan(b, new HttpError(418));
    await expect(buyer().buyStrictly(b)).rejects.toMatchObject({ status: 418 });
    expect(supplier.count(b)).toBe(1);
    const c = id();
    supplier.plan(c, new NonRetryableError('card blocked', { cause: new HttpError(503) }));
    await expect(buyer().buy(c)).rejects.toBeInstanceOf(NonRetryableError);
    expect(supplier.count(c)).toBe(1);
  });

  it('a 429 with Retry-After: 2 waits at least 2 seconds before the next attempt', async () => {
    await start('fake');
    const q = id();
    supplier.plan(q, new HttpError(429, { 'Retry-After': '2' }));
    const done = buyer().buy(q);
    await runtime.clock.untilSleeping();
    expect(runtime.clock.nextDueAt! - runtime.clock.now()).toBe(2000);
    await runtime.clock.advance('1999ms');
    expect(supplier.count(q)).toBe(1);
    await runtime.clock.advance('1ms');
    await expect(done).resolves.toBe(`quote ${q} on attempt 2`);
  });

  it('exhausted retries throw RetriesExhaustedError, and the fallback branch survives a crash', async () => {
    await start();
    const q = id();
    supplier.plan(
      q,
      new HttpError(503),
      new HttpError(502),
      new HttpError(504),
      new HttpError(500),
    );
    runtime.crash.afterCommit('Buyer.catalogPrice');
    await expect(buyer().buyOrFallback(q)).rejects.toThrow(SimulatedCrash);
    expect(supplier.count(q)).toBe(4);
    runtime = await runtime.restart();
    await expect(buyer().buyOrFallback(q)).resolves.toBe(`catalog price for ${q}`);
    expect(supplier.count(q)).toBe(4);
    const [quote, fallback] = await runtime.history(`fallback-${q}`);
    expect(quote).toMatchObject({
      status: 'failed',
      attempts: 4,
      error: { name: 'RetriesExhaustedError' },
    });
    expect(fallback).toMatchObject({ name: 'catalogPrice', status: 'completed' });
  });

  it('RetriesExhaustedError carries every attempt and the last error as its cause, also replayed', async () => {
    await start();
    const q = id();
    supplier.plan(
      q,
      new HttpError(503),
      new HttpError(502),
      new HttpError(504),
      new HttpError(500),
    );
    const first = await buyer()
      .buy(q)
      .catch((e: unknown) => e);
    runtime = await runtime.restart();
    const replayed = await buyer()
      .buy(q)
      .catch((e: unknown) => e);
    for (const error of [first, replayed]) {
      expect(error).toBeInstanceOf(RetriesExhaustedError);
      const exhausted = error as RetriesExhaustedError;
      expect(exhausted.attempts).toBe(4);
      expect(exhausted.errors.map((e) => e.message)).toEqual([
        'HTTP 503',
        'HTTP 502',
        'HTTP 504',
        'HTTP 500',
      ]);
      expect(exhausted.cause).toMatchObject({ name: 'HttpError', status: 500 });
    }
  });

  it('a crash during backoff does not reset the attempt count', async () => {
    await start('fake');
    const q = id();
    supplier.plan(
      q,
      new HttpError(503),
      new HttpError(503),
      new HttpError(503),
      new HttpError(503),
    );
    const first = buyer().buy(q);
    for (let i = 0; i < 2; i++) {
      await runtime.clock.untilSleeping();
      if (i === 0) await runtime.clock.advance('20ms');
    }
    expect(supplier.count(q)).toBe(2);
    runtime.kill('killed during the backoff after attempt 2');
    await expect(first).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    await expect(runtime.clock.drive(buyer().buy(q))).rejects.toBeInstanceOf(RetriesExhaustedError);
    expect(supplier.count(q)).toBe(4);
    expect(supplier.calls.map((c) => c.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('a 10-minute backoff leaves the run waiting with its wake-up time and no process holding it', async () => {
    await start('fake');
    const q = id();
    supplier.plan(q, new HttpError(503));
    const waitingEvents: Array<WaymarkEvents['run.waiting']> = [];
    runtime.on('run.waiting', (e) => waitingEvents.push(e));
    const failedAt = runtime.clock.now();
    const handle = await runtime.start(Buyer, 'buySlowly', [q]);
    const result = handle.result();
    await waitFor(async () => (await handle.status()) === 'waiting');
    const run = await handle.describe();
    expect(run).toMatchObject({ status: 'waiting', owner: null });
    expect(run.wakeAt!.getTime()).toBe(failedAt + 10 * 60_000);
    // Another connection may read the stored status before the run's own write is answered
    // and the event emitted.
    await waitFor(() => Promise.resolve(waitingEvents.length > 0));
    expect(waitingEvents).toEqual([
      { runId: `slow-${q}`, workflow: 'buy-slowly', wakeAt: failedAt + 600_000 },
    ]);
    expect((await handle.history())[0]).toMatchObject({ status: 'retrying', attempts: 1 });

    await runtime.clock.advance('9m');
    expect(supplier.count(q)).toBe(1);
    await runtime.clock.advance('1m');
    await expect(result).resolves.toBe(`quote ${q} on attempt 2`);
  });

  it('a resume before the wake-up time waits out the remainder', async () => {
    await start('fake');
    const q = id();
    supplier.plan(q, new HttpError(503));
    const handle = await runtime.start(Buyer, 'buySlowly', [q]);
    await waitFor(async () => (await handle.status()) === 'waiting');
    runtime = await runtime.restart();
    await runtime.clock.advance('4m');
    const resumed = buyer().buySlowly(q);
    await runtime.clock.untilSleeping();
    expect(runtime.clock.nextDueAt! - runtime.clock.now()).toBe(6 * 60_000);
    await runtime.clock.advance('6m');
    await expect(resumed).resolves.toBe(`quote ${q} on attempt 2`);
    expect(supplier.count(q)).toBe(2);
  });

  it('recover() resumes waiting runs that are due', async () => {
    await start('fake');
    const q = id();
    supplier.plan(q, new HttpError(503));
    const handle = await runtime.start(Buyer, 'buySlowly', [q]);
    await waitFor(async () => (await handle.status()) === 'waiting');
    expect((await runtime.recover()).map((h) => h.runId)).not.toContain(`slow-${q}`);
    await runtime.clock.advance('10m');
    const recovered = await runtime.recover();
    expect(recovered.map((h) => h.runId)).toContain(`slow-${q}`);
    await expect(handle.result()).resolves.toBe(`quote ${q} on attempt 2`);
  });

  it("onExhausted: 'intervene' parks the run; retry() tries again with a fresh budget", async () => {
    await start();
    const q = id();
    supplier.plan(q, new HttpError(503), new HttpError(503), new HttpError(503));
    await expect(buyer().buyWithHelp(q)).rejects.toBeInstanceOf(RetriesExhaustedError);
    const handle = runtime.handle(`help-${q}`);
    await expect(handle).toHaveRunStatus('needs_attention');
    expect(await handle.describe()).toMatchObject({ parkedSeq: 0, owner: null });
    expect((await handle.history())[0]).toMatchObject({ status: 'parked', attempts: 2 });
    expect(supplier.count(q)).toBe(2);

    const retried = await runtime.retry(`help-${q}`);
    await expect(retried.result()).resolves.toBe(`ordered (quote ${q} on attempt 2)`);
    expect(supplier.calls.map((c) => c.attempt)).toEqual([1, 2, 1, 2]);
    expect((await handle.history())[0]).toMatchObject({ status: 'completed', attempts: 2 });
  });

  it('resolveStep() records an operator-supplied result and the run continues from it', async () => {
    await start();
    const q = id();
    supplier.plan(q, new HttpError(503), new HttpError(503));
    await expect(buyer().buyWithHelp(q)).rejects.toBeInstanceOf(RetriesExhaustedError);
    const handle = await runtime.resolveStep(`help-${q}`, 'quote agreed by phone');
    await expect(handle.result()).resolves.toBe('ordered (quote agreed by phone)');
    expect(supplier.count(q)).toBe(2);
    await expect(buyer().buyWithHelp(q)).resolves.toBe('ordered (quote agreed by phone)');
    await expect(runtime.resolveStep(`help-${q}`, 'again')).rejects.toBeInstanceOf(
      InvalidRunStateError,
    );
  });

  it('cancel() ends a parked run, and a cancelled run stays cancelled', async () => {
    await start();
    const q = id();
    supplier.plan(q, new HttpError(503), new HttpError(503));
    await expect(buyer().buyWithHelp(q)).rejects.toBeInstanceOf(RetriesExhaustedError);
    await runtime.cancel(`help-${q}`, 'supplier dropped');
    await expect(runtime.handle(`help-${q}`)).toHaveRunStatus('cancelled');
    const error = await buyer()
      .buyWithHelp(q)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunCancelledError);
    // Its stored outcome, marked as such below the message as it was thrown.
    const [message, note] = (error as Error).message.split('\n');
    expect(message).toBe(`run "help-${q}" was cancelled: supplier dropped`);
    expect(note).toMatch(new RegExp(`^↳ run "help-${q}" was cancelled at `));
    expect(storedOutcomeOf(error)).toMatchObject({ runId: `help-${q}`, status: 'cancelled' });
    await expect(runtime.cancel(`help-${q}`)).rejects.toBeInstanceOf(InvalidRunStateError);
    await expect(runtime.retry(`buy-unknown-${q}`)).rejects.toThrow(/no run with id/);
  });

  it('retry() re-runs a failed run from its failed step', async () => {
    await start();
    const q = id();
    supplier.plan(q, new HttpError(404));
    await expect(buyer().buy(q)).rejects.toMatchObject({ status: 404 });
    await expect(runtime.handle(`buy-${q}`)).toHaveRunStatus('failed');
    const handle = await runtime.retry(`buy-${q}`);
    await expect(handle.result()).resolves.toBe(`quote ${q} on attempt 1`);
    await expect(handle).toHaveRunStatus('completed');
    expect(supplier.count(q)).toBe(2);
  });

  it('a step timeout aborts the attempt through ctx.signal and counts as transient', async () => {
    await start('fake');
    const q = id();
    supplier.plan(q, 'hang');
    const done = runtime.clock.drive(buyer().buyInTime(q));
    await expect(done).resolves.toBe(`quote ${q} on attempt 2`);
    const [step] = await runtime.history(`timed-${q}`);
    expect(step).toMatchObject({ status: 'completed', attempts: 2 });
    expect(runtime.clock.now()).toBeGreaterThanOrEqual(Date.UTC(2026, 0, 1) + 6000);
  });

  it('a step that always times out fails with StepTimeoutError as the cause', async () => {
    await start('fake');
    const q = id();
    supplier.plan(q, 'hang', 'hang', 'hang');
    const error = await runtime.clock.drive(buyer().buyInTime(q)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as Error).cause).toBeInstanceOf(StepTimeoutError);
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not met within 2 s');
}
