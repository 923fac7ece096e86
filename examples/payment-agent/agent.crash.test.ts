import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { container as rootContainer } from 'tsyringe';
import { DataSource } from 'typeorm';
import {
  createTestRuntime,
  EffectLedger,
  SimulatedCrash,
  type CrashPoint,
  type TestRuntime,
} from 'waymark/testing';
import { FakeMailer, MAILER } from './Mailer';
import { Order } from './Order';
import { PaymentAgent, paymentRunId, type CheckoutResult, type OrderRequest } from './PaymentAgent';
import { FakePaymentGateway, PAYMENT_GATEWAY } from './PaymentGateway';

const ROOT = resolve(__dirname, '..', '..');
const STEPS = ['charge', 'recordOrder', 'sendConfirmation'] as const;
const POINTS: CrashPoint[] = ['before', 'afterEffect', 'afterCommit'];

const order: OrderRequest = {
  id: 'order-42',
  customerId: 'cus_ada',
  email: 'ada@example.org',
  amount: 4200,
  currency: 'eur',
};
const CHARGE = `charge:${order.customerId}`;
const MAIL = `mail:${order.email}`;

/** One shop: its own in-memory database, container, fakes, ledger and test runtime. */
interface Shop {
  dataSource: DataSource;
  ledger: EffectLedger;
  runtime: TestRuntime;
  agent(): PaymentAgent;
  orderRows(): Promise<Order[]>;
  close(): Promise<void>;
}

async function openShop(): Promise<Shop> {
  // Transactional steps need the application's DataSource; never give the runtime a URL here.
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities: [Order],
    synchronize: true,
  });
  await dataSource.initialize();
  const ledger = await EffectLedger.open(dataSource);
  const scope = rootContainer.createChildContainer();
  scope.registerInstance(PAYMENT_GATEWAY, new FakePaymentGateway(ledger));
  scope.registerInstance(MAILER, new FakeMailer(ledger));
  const shop: Shop = {
    dataSource,
    ledger,
    runtime: await createTestRuntime({ database: dataSource, container: scope }),
    agent: () => scope.resolve(PaymentAgent),
    orderRows: () => dataSource.getRepository(Order).findBy({ id: order.id }),
    async close() {
      await shop.runtime.close();
      await ledger.close();
      await dataSource.destroy();
    },
  };
  return shop;
}

/** What had happened when the process died: real charges, order rows, mails sent. */
type Effects = [charges: number, orderRows: number, mails: number];

const AT_CRASH: Record<(typeof STEPS)[number], Record<CrashPoint, Effects>> = {
  charge: { before: [0, 0, 0], afterEffect: [1, 0, 0], afterCommit: [1, 0, 0] },
  // The row is written inside the step's transaction, which the crash rolls back.
  recordOrder: { before: [1, 0, 0], afterEffect: [1, 0, 0], afterCommit: [1, 1, 0] },
  sendConfirmation: { before: [1, 1, 0], afterEffect: [1, 1, 1], afterCommit: [1, 1, 1] },
};

async function effectsOf(shop: Shop): Promise<Effects> {
  return [
    await shop.ledger.count(CHARGE),
    (await shop.orderRows()).length,
    await shop.ledger.count(MAIL),
  ];
}

describe('PaymentAgent', () => {
  let uninterrupted: CheckoutResult;
  let uninterruptedEffects: Effects;

  beforeAll(async () => {
    const shop = await openShop();
    try {
      uninterrupted = await shop.agent().checkout(order);
      uninterruptedEffects = await effectsOf(shop);
    } finally {
      await shop.close();
    }
  });

  it('an uninterrupted checkout charges once, records the order once and confirms once', () => {
    expect(uninterrupted).toEqual({ orderId: order.id, chargeId: 'ch_0001', confirmation: 'sent' });
    expect(uninterruptedEffects).toEqual([1, 1, 1]);
  });

  describe.each(STEPS)('a crash at %s', (step) => {
    let shop: Shop;

    beforeEach(async () => {
      shop = await openShop();
    });
    afterEach(async () => {
      await shop.close();
    });

    it.each(POINTS)('%s: the resumed checkout does nothing twice', async (point) => {
      shop.runtime.crash[point](`PaymentAgent.${step}`);
      await expect(shop.agent().checkout(order)).rejects.toThrow(SimulatedCrash);
      expect(await effectsOf(shop)).toEqual(AT_CRASH[step][point]);
      shop.runtime = await shop.runtime.restart();

      const result = await shop.agent().checkout(order);

      await expect(shop.ledger).toHaveEffectOnce(CHARGE);
      expect(await shop.orderRows()).toEqual([
        {
          id: order.id,
          customerId: order.customerId,
          amount: order.amount,
          currency: order.currency,
          chargeId: uninterrupted.chargeId,
        },
      ]);
      await expect(shop.ledger).toHaveEffectOnce(MAIL);
      expect(await shop.ledger.duplicates()).toEqual([]);
      if (step === 'sendConfirmation' && point === 'afterEffect') {
        // The mail left, but the process died before recording that: not sent again, flagged.
        expect(result).toEqual({ ...uninterrupted, confirmation: 'check-manually' });
        expect(shop.runtime).toHaveExecutedStepTimes('PaymentAgent.sendConfirmation', 1);
      } else {
        expect(result).toEqual(uninterrupted);
      }
      await expect(shop.runtime.handle(paymentRunId(order))).toHaveRunStatus('completed');
    });
  });

  it('a crash after the gateway answered re-runs charge with the same key; the gateway charges once', async () => {
    const shop = await openShop();
    try {
      shop.runtime.crash.afterEffect('PaymentAgent.charge');
      await expect(shop.agent().checkout(order)).rejects.toThrow(SimulatedCrash);
      shop.runtime = await shop.runtime.restart();
      await expect(shop.agent().checkout(order)).resolves.toEqual(uninterrupted);
      expect(shop.runtime).toHaveExecutedStepTimes('PaymentAgent.charge', 2);
      await expect(shop.ledger).toHaveEffectOnce(CHARGE);
      expect((await shop.ledger.entries()).map((e) => e.detail)).toContain(
        `ch_0001 4200 eur key=${paymentRunId(order)}:charge-${order.id}`,
      );
    } finally {
      await shop.close();
    }
  });
});

describe('examples/payment-agent/main.ts', () => {
  it('checks out once, and the second call returns the stored result', async () => {
    const { stdout, stderr } = await runMain();
    expect(stderr).toBe('');
    const result = '{"orderId":"order-42","chargeId":"ch_0001","confirmation":"sent"}';
    expect(stdout).toBe(
      `checkout: ${result}\nagain:    ${result}\ncharges: 1, order rows: 1, mails sent: 1\n`,
    );
  });
});

/** Runs the example program as a user would. */
function runMain(): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(
    process.execPath,
    ['-r', '@swc-node/register', 'examples/payment-agent/main.ts'],
    { cwd: ROOT, encoding: 'utf8' },
  );
}
