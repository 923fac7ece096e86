/**
 * Runs one checkout on the application's SQLite database, then calls it again to show
 * that the second call returns the stored result and charges nobody twice.
 *
 * `node -r @swc-node/register examples/payment-agent/main.ts`
 *
 * @module
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container } from 'tsyringe';
import { DataSource } from 'typeorm';
import { Waymark } from 'waymark';
import { FakeMailer, MAILER } from './Mailer';
import { Order } from './Order';
import { PaymentAgent, type OrderRequest } from './PaymentAgent';
import { FakePaymentGateway, PAYMENT_GATEWAY } from './PaymentGateway';

const order: OrderRequest = {
  id: 'order-42',
  customerId: 'cus_ada',
  email: 'ada@example.org',
  amount: 4200,
  currency: 'eur',
};

async function main(dir: string): Promise<void> {
  // The application's DataSource: waymark stores its runs here too, so the transactional
  // step commits the order row and its checkpoint together.
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: join(dir, 'shop.db'),
    entities: [Order],
    synchronize: true, // fine for a demo; use migrations in production
  });
  await dataSource.initialize();
  const gateway = new FakePaymentGateway();
  const mailer = new FakeMailer();
  container.registerInstance(PAYMENT_GATEWAY, gateway);
  container.registerInstance(MAILER, mailer);
  const runtime = await Waymark.create({ database: dataSource });
  try {
    const agent = container.resolve(PaymentAgent);
    console.log('checkout:', JSON.stringify(await agent.checkout(order)));
    console.log('again:   ', JSON.stringify(await agent.checkout(order)));
    const rows = await dataSource.getRepository(Order).countBy({ id: order.id });
    console.log(
      `charges: ${gateway.charges.length}, order rows: ${rows}, mails sent: ${mailer.sent.length}`,
    );
  } finally {
    await runtime.close();
    await dataSource.destroy();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'waymark-payment-'));
main(dir)
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(dir, { recursive: true, force: true }));
