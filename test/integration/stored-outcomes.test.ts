import { container as rootContainer, injectable, type DependencyContainer } from 'tsyringe';
import {
  isRunCancelledError,
  isWaymarkError,
  NonRetryableError,
  registerErrorClasses,
  RunCancelledError,
  Step,
  storedOutcomeOf,
  Waymark,
  Workflow,
  WorkflowContext,
  type WaymarkRuntime,
} from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { RecordingLogger } from '../support/RecordingLogger';

/** A user's own error class, registered so that it reads back as itself. */
class OutOfStockError extends Error {
  constructor(
    readonly sku: string,
    options?: { cause?: unknown },
  ) {
    super(`${sku} is out of stock`, options);
    this.name = 'OutOfStockError';
  }
}
registerErrorClasses(OutOfStockError);

@injectable()
class StoredOrders {
  constructor(private readonly ctx: WorkflowContext) {}

  @Step()
  async reserve(sku: string): Promise<void> {
    throw new NonRetryableError(`${sku} is out of stock`);
  }

  @Step()
  async reserveAtSupplier(sku: string): Promise<void> {
    throw new OutOfStockError(sku, { cause: new Error('supplier answered 409') });
  }

  @Workflow({ name: 'stored-outcome-place', id: (sku: string) => `place:${sku}` })
  async place(sku: string): Promise<string> {
    await this.reserve(sku);
    return 'placed';
  }

  @Workflow({ name: 'stored-outcome-supplier', id: (sku: string) => `supplier:${sku}` })
  async order(sku: string): Promise<string> {
    await this.reserveAtSupplier(sku);
    return 'ordered';
  }

  @Workflow({ name: 'stored-outcome-approved', id: (sku: string) => `approved:${sku}` })
  async placeWhenApproved(sku: string): Promise<string> {
    await this.ctx.waitForSignal('approval');
    await this.reserve(sku);
    return 'placed';
  }
}

/** What a call threw. */
async function thrownBy(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to throw');
}

const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

describe.each(BACKENDS)('a stored outcome handed back on %s', (backend) => {
  let db: TestDatabase;
  let scope: DependencyContainer;
  let runtime: WaymarkRuntime;
  let log: RecordingLogger;
  let n = 0;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    scope = rootContainer.createChildContainer();
    log = new RecordingLogger([]);
    runtime = await Waymark.create({ database: db.url, container: scope, logger: log });
  });
  afterEach(async () => {
    await runtime.close();
    expect(log.unexpected()).toEqual([]);
  });

  const orders = (): StoredOrders => scope.resolve(StoredOrders);
  const sku = (): string => `${backend}-${++n}-${Date.now()}`;
  const storedAtOf = async (runId: string): Promise<Date> =>
    (await runtime.handle(runId).describe()).updatedAt;

  it('is delivered as thrown the first time, and marked as the stored outcome on every later call', async () => {
    const item = sku();
    const runId = `place:${item}`;
    const first = await thrownBy(orders().place(item));
    expect(first).toBeInstanceOf(NonRetryableError);
    expect(first.message).toBe(`${item} is out of stock`);
    expect(storedOutcomeOf(first)).toBeUndefined();

    const at = (await storedAtOf(runId)).toISOString();
    for (const again of [
      await thrownBy(orders().place(item)),
      await thrownBy(runtime.handle(runId).result()),
    ]) {
      expect(again).toBeInstanceOf(NonRetryableError);
      expect(isWaymarkError(again, 'NON_RETRYABLE')).toBe(true);
      expect(again.name).toBe('NonRetryableError');
      expect(again.message).toBe(
        `${item} is out of stock\n↳ run "${runId}" failed at ${at}; this is its stored outcome, ` +
          'returned without running anything again. To run it again: ' +
          `\`waymark retry ${runId}\`, runtime.retry("${runId}"), or a new run id`,
      );
      expect(again.stack).toMatch(new RegExp(`^NonRetryableError: ${item} is out of stock\n↳ `));
      const note = storedOutcomeOf(again);
      expect(note).toEqual({
        runId,
        status: 'failed',
        storedAt: new Date(at),
        error: expect.any(NonRetryableError),
      });
      expect((note!.error as Error).message).toBe(`${item} is out of stock`);
    }
  });

  it("keeps a registered class's own fields and cause, and says nothing new once retried", async () => {
    const item = sku();
    const runId = `supplier:${item}`;
    await thrownBy(orders().order(item));
    const again = (await thrownBy(orders().order(item))) as OutOfStockError;
    expect(again).toBeInstanceOf(OutOfStockError);
    expect(again.sku).toBe(item);
    expect(again.cause).toEqual(new Error('supplier answered 409'));
    expect(again.message.split('\n')[0]).toBe(`${item} is out of stock`);
    expect(storedOutcomeOf(again)).toMatchObject({ runId, status: 'failed' });

    // Retried, it runs again here: its new failure is this call's own, delivered as thrown.
    await runtime.retry(runId);
    const retried = await thrownBy(runtime.handle(runId).result());
    expect(retried).toBeInstanceOf(OutOfStockError);
    expect(retried.message).toBe(`${item} is out of stock`);
    expect(storedOutcomeOf(retried)).toBeUndefined();
  });

  it('marks a cancelled run the same way, pointing at a new id instead of retry', async () => {
    const item = sku();
    const runId = `approved:${item}`;
    const waiting = thrownBy(orders().placeWhenApproved(item));
    await waitForStatus(runtime, runId, 'waiting');
    await runtime.cancel(runId, 'no longer wanted');

    // The caller waited while it was cancelled: the cancellation is news to it, not a replay.
    const first = await waiting;
    expect(first).toBeInstanceOf(RunCancelledError);
    expect(first.message).toBe(`run "${runId}" was cancelled: no longer wanted`);
    expect(storedOutcomeOf(first)).toBeUndefined();

    const again = (await thrownBy(orders().placeWhenApproved(item))) as RunCancelledError;
    const at = (await storedAtOf(runId)).toISOString();
    expect(isRunCancelledError(again)).toBe(true);
    expect(again).toBeInstanceOf(RunCancelledError);
    expect([again.name, again.code, again.runId]).toEqual([
      'RunCancelledError',
      'RUN_CANCELLED',
      runId,
    ]);
    expect(again.message).toBe(
      `run "${runId}" was cancelled: no longer wanted\n↳ run "${runId}" was cancelled at ${at}; ` +
        'this is its stored outcome, returned without running anything again. A cancelled run ' +
        `is not retried: call it with a new run id, or fork it (\`waymark fork ${runId} --from <seq>\`)`,
    );
    expect(storedOutcomeOf(again)).toMatchObject({ runId, status: 'cancelled' });
  });

  it('is unmarked for a caller in another process that watched the run end, marked for one that came after', async () => {
    const other = await Waymark.create({ database: db.url, container: scope, logger: log });
    try {
      const item = sku();
      const runId = `approved:${item}`;
      const caller = thrownBy(orders().placeWhenApproved(item));
      await waitForStatus(runtime, runId, 'waiting');
      const watcher = thrownBy(other.handle(runId).result());
      await runtime.signal(runId, 'approval', { approved: true });

      for (const seen of [await caller, await watcher]) {
        expect(seen).toBeInstanceOf(NonRetryableError);
        expect(seen.message).toBe(`${item} is out of stock`);
        expect(storedOutcomeOf(seen)).toBeUndefined();
      }
      const later = await thrownBy(other.handle(runId).result());
      expect(storedOutcomeOf(later)).toMatchObject({ runId, status: 'failed' });
    } finally {
      await other.close();
    }
  });
});

async function waitForStatus(runtime: WaymarkRuntime, runId: string, status: string) {
  for (let i = 0; i < 500; i++) {
    const row = await runtime
      .handle(runId)
      .describe()
      .catch(() => undefined);
    if (row?.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`run "${runId}" never became ${status}`);
}
