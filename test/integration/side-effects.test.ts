import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { DataSource } from 'typeorm';
import {
  ConfigurationError,
  IdempotencyConflictError,
  UnknownOutcomeError,
  Waymark,
  dataSourceOptionsFromUrl,
} from 'waymark';
import { createTestRuntime, EffectLedger, SimulatedCrash, type TestRuntime } from 'waymark/testing';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import {
  Checkout,
  FakeGateway,
  FakeMailer,
  Invoicing,
  ShopOrder,
  type OrderRequest,
} from '../support/fixtures/Checkout';

describe.each(ALL_BACKENDS)('side effects on %s', (backend) => {
  let db: TestDatabase;
  let app: DataSource;
  let runtime: TestRuntime;
  let ledger: EffectLedger;
  let scope: DependencyContainer;
  let gateway: FakeGateway;
  let n = 0;
  const order = (): OrderRequest => ({
    id: `${backend}-${++n}-${Date.now()}`,
    email: `buyer${n}@example.org`,
    total: 42,
  });
  const checkout = (): Checkout => scope.resolve(Checkout);

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    app = new DataSource({
      ...dataSourceOptionsFromUrl(db.url),
      entities: [ShopOrder],
      synchronize: true,
    });
    await app.initialize();
  });
  afterAll(async () => {
    await app.destroy();
    await db.drop();
  });
  beforeEach(async () => {
    runtime = await createTestRuntime({
      database: app,
      container: rootContainer.createChildContainer(),
    });
    ledger = await EffectLedger.open(app);
    scope = runtime.container;
    gateway = new FakeGateway(ledger);
    scope.registerInstance(FakeGateway, gateway);
    scope.registerInstance(FakeMailer, new FakeMailer(ledger));
  });
  afterEach(async () => {
    await runtime.close();
    await ledger.close();
  });

  const ordersFor = (id: string) => app.getRepository(ShopOrder).findBy({ id });

  it('an uninterrupted checkout charges once, records the order once and confirms once', async () => {
    const o = order();
    await expect(checkout().checkout(o)).resolves.toEqual({
      chargeId: 'ch_1_42',
      confirmation: 'sent',
    });
    await expect(ledger).toHaveEffectOnce(`charge:checkout-${o.id}:charge-${o.id}`);
    await expect(ledger).toHaveEffectOnce(`mail:${o.email}`);
    expect(await ordersFor(o.id)).toHaveLength(1);
  });

  it('a crash after an @Idempotent step ran re-runs it with the identical key, and the gateway charges once', async () => {
    const o = order();
    runtime.crash.afterEffect('Checkout.charge');
    await expect(checkout().checkout(o)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    await expect(checkout().checkout(o)).resolves.toMatchObject({ chargeId: 'ch_1_42' });
    const key = `checkout-${o.id}:charge-${o.id}`;
    expect(gateway.calls).toEqual([key, key]);
    await expect(ledger).toHaveEffectOnce(`charge:${key}`);
  });

  it('a crash after an at-most-once step ran does not run it again: the workflow gets UnknownOutcomeError', async () => {
    const o = order();
    runtime.crash.afterEffect('Checkout.confirm');
    await expect(checkout().checkout(o)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    await expect(checkout().checkout(o)).resolves.toEqual({
      chargeId: 'ch_1_42',
      confirmation: 'unknown',
    });
    await expect(ledger).toHaveEffectOnce(`mail:${o.email}`);
    expect(runtime).toHaveExecutedStepTimes('Checkout.confirm', 1);
    const history = await runtime.history(`checkout-${o.id}`);
    expect(history[2]).toMatchObject({
      name: 'confirm',
      status: 'failed',
      error: { name: 'UnknownOutcomeError' },
    });
    // Replays see the same recorded outcome.
    runtime = await runtime.restart();
    await expect(checkout().checkout(o)).resolves.toEqual({
      chargeId: 'ch_1_42',
      confirmation: 'unknown',
    });
  });

  it("onUnknown: 'intervene' parks the run; resolveStep() records what happened and the run continues", async () => {
    const o = order();
    runtime.crash.afterEffect('Checkout.confirmOrPark');
    await expect(checkout().checkoutCarefully(o)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    const error = await checkout()
      .checkoutCarefully(o)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownOutcomeError);
    expect(error).toMatchObject({ runId: `careful-${o.id}`, seq: 0, step: 'confirmOrPark' });
    const handle = runtime.handle(`careful-${o.id}`);
    await expect(handle).toHaveRunStatus('needs_attention');
    expect(await handle.describe()).toMatchObject({ parkedSeq: 0 });

    const resolved = await runtime.resolveStep(`careful-${o.id}`, undefined);
    await expect(resolved.result()).resolves.toBe('confirmed');
    await expect(ledger).toHaveEffectOnce(`mail:${o.email}`);
  });

  it("retry() of a run parked with an unknown outcome runs the step again, on the operator's word", async () => {
    const o = order();
    runtime.crash.afterEffect('Checkout.confirmOrPark');
    await expect(checkout().checkoutCarefully(o)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    await expect(checkout().checkoutCarefully(o)).rejects.toBeInstanceOf(UnknownOutcomeError);
    const retried = await runtime.retry(`careful-${o.id}`);
    await expect(retried.result()).resolves.toBe('confirmed');
    expect(await ledger.count(`mail:${o.email}`)).toBe(2);
  });

  it('a crash inside a transactional step leaves neither the business row nor the checkpoint; the resume writes both once', async () => {
    const o = order();
    runtime.crash.afterEffect('Checkout.saveOrder');
    await expect(checkout().checkout(o)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    expect(await ordersFor(o.id)).toEqual([]);
    expect((await runtime.history(`checkout-${o.id}`)).map((s) => s.name)).toEqual(['charge']);
    await expect(checkout().checkout(o)).resolves.toMatchObject({ confirmation: 'sent' });
    expect(await ordersFor(o.id)).toHaveLength(1);
    expect((await runtime.history(`checkout-${o.id}`)).map((s) => s.name)).toEqual([
      'charge',
      'saveOrder',
      'confirm',
    ]);
  });

  it('a crash right after a transactional step committed keeps both, and the step does not run again', async () => {
    const o = order();
    runtime.crash.afterCommit('Checkout.saveOrder');
    await expect(checkout().checkout(o)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    expect(await ordersFor(o.id)).toHaveLength(1);
    await expect(checkout().checkout(o)).resolves.toMatchObject({ confirmation: 'sent' });
    expect(await ordersFor(o.id)).toHaveLength(1);
    expect(runtime).toHaveExecutedStepTimes('Checkout.saveOrder', 1);
  });

  it('a global key runs its body once across runs; the second run gets the stored result', async () => {
    Invoicing.executions = 0;
    const month = `${backend}-${Date.now()}`;
    const a = await scope.resolve(Invoicing).fromA(month);
    const b = await scope.resolve(Invoicing).fromB(month);
    expect(b).toBe(a);
    expect(a).toBe(`invoice for ${month} issued by invoice-a-${month} with key invoice-${month}`);
    expect(Invoicing.executions).toBe(1);
    expect((await runtime.history(`invoice-b-${month}`))[0]).toMatchObject({
      status: 'completed',
      attempts: 0,
    });
  });

  it('two concurrent runs with one global key: the second waits for the first, the body runs once', async () => {
    Invoicing.executions = 0;
    const month = `${backend}-concurrent-${Date.now()}`;
    let open!: () => void;
    Invoicing.gate = new Promise((resolve) => (open = resolve));
    try {
      const first = scope.resolve(Invoicing).fromA(month);
      await waitUntil(() => Invoicing.executions === 1);
      const second = scope.resolve(Invoicing).fromB(month);
      await new Promise((resolve) => setTimeout(resolve, 100));
      open();
      const [a, b] = await Promise.all([first, second]);
      expect(b).toBe(a);
      expect(Invoicing.executions).toBe(1);
    } finally {
      Invoicing.gate = undefined;
    }
  });

  it('a global key held by a live run past idempotencyWait is an IdempotencyConflictError', async () => {
    await runtime.close();
    runtime = await createTestRuntime({
      database: app,
      container: scope,
      idempotencyWait: '150ms',
    });
    Invoicing.executions = 0;
    const month = `${backend}-conflict-${Date.now()}`;
    let open!: () => void;
    Invoicing.gate = new Promise((resolve) => (open = resolve));
    try {
      const first = scope.resolve(Invoicing).fromA(month);
      await waitUntil(() => Invoicing.executions === 1);
      const error = await scope
        .resolve(Invoicing)
        .fromB(month)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IdempotencyConflictError);
      expect(error).toMatchObject({ key: `invoice-${month}`, heldBy: `invoice-a-${month}` });
      open();
      await first;
      expect(Invoicing.executions).toBe(1);
    } finally {
      Invoicing.gate = undefined;
    }
  });

  it('a transactional step needs the application DataSource: a URL runtime is refused when created', async () => {
    await expect(
      Waymark.create({ database: db.url === 'sqlite::memory:' ? 'sqlite::memory:' : db.url }),
    ).rejects.toThrow(ConfigurationError);
    await expect(Waymark.create({ database: 'sqlite::memory:' })).rejects.toThrow(
      /Checkout\.saveOrder is transactional, but Waymark\.create\(\) was given a URL/,
    );
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error('condition not met within 3 s');
}
