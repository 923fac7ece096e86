import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { container as rootContainer, inject, injectable } from 'tsyringe';
import { DataSource } from 'typeorm';
import {
  NonRetryableError,
  Step,
  Workflow,
  WorkflowContext,
  dataSourceOptionsFromUrl,
} from 'waymark';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { ShopOrder } from '../support/fixtures/Checkout';

/** Lets the test hold a transactional step's transaction open, then end it. */
class Gate {
  entered!: () => void;
  readonly inside = new Promise<void>((resolve) => (this.entered = resolve));
  release!: (fail: boolean) => void;
  readonly released = new Promise<boolean>((resolve) => (this.release = resolve));
}
const GATE = Symbol('Gate');

@injectable()
class Orders {
  constructor(
    private readonly ctx: WorkflowContext,
    @inject(GATE) private readonly gate: Gate,
  ) {}

  @Workflow({ name: 'sqlite-connection.save', id: (id: string) => `save-${id}` })
  async save(id: string): Promise<string> {
    try {
      await this.insertHeld(id);
      return 'saved';
    } catch {
      return 'rolled back';
    }
  }

  @Step({ transactional: true })
  async insertHeld(id: string): Promise<void> {
    await this.ctx.entityManager.insert(ShopOrder, { id, total: 1, chargeId: 'c' });
    this.gate.entered();
    if (await this.gate.released) throw new NonRetryableError('the business rule said no');
  }

  @Workflow({ name: 'sqlite-connection.count', id: (id: string) => `count-${id}` })
  async count(_id: string, steps: number): Promise<number> {
    let total = 0;
    for (let i = 0; i < steps; i++) total += await this.one(i);
    return total;
  }

  @Step()
  async one(i: number): Promise<number> {
    return i;
  }
}

/**
 * SQLite has one connection: a checkpoint of one run must never land inside another run's
 * open transaction (it would be rolled back with it, or committed with its writes).
 */
describe('one SQLite connection shared by a transaction and other runs', () => {
  let db: TestDatabase;
  let app: DataSource;
  let runtime: TestRuntime;

  beforeAll(async () => {
    db = await createTestDatabase('sqlite-file');
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
  });
  afterEach(() => runtime.close());

  it.each([
    ['rolls back', true, 'rolled back', 0],
    ['commits', false, 'saved', 1],
  ])(
    "another run's checkpoints, written while a transactional step is open, survive when it %s",
    async (_, fail, expected, orders) => {
      const gate = new Gate();
      runtime.container.registerInstance(GATE, gate);
      const workflows = runtime.container.resolve(Orders);
      const id = `${String(fail)}-${Date.now()}`;

      const saving = workflows.save(id);
      await gate.inside;
      const counting = workflows.count(id, 5);
      // Give the other run time to reach its checkpoints while the transaction is open.
      await new Promise((resolve) => setTimeout(resolve, 50));
      gate.release(fail);

      await expect(saving).resolves.toBe(expected);
      await expect(counting).resolves.toBe(10);
      expect(await app.getRepository(ShopOrder).countBy({ id })).toBe(orders);
      const history = await runtime.history(`count-${id}`);
      expect(history.map((s) => [s.seq, s.status])).toEqual(
        [0, 1, 2, 3, 4].map((seq) => [seq, 'completed']),
      );
      await expect(runtime.handle(`count-${id}`).status()).resolves.toBe('completed');
      const saved = await runtime.history(`save-${id}`);
      expect(saved.map((s) => s.status)).toEqual([fail ? 'failed' : 'completed']);
    },
  );

  it("an operator action waits for another process's write lock instead of failing with 'database is locked'", async () => {
    runtime.container.registerInstance(GATE, new Gate());
    const queued = await runtime.start(Orders, 'count', [`cancel-${Date.now()}`, 3], {
      queue: true,
    });
    // Another process takes the write lock, writes, and commits 300 ms later. A transaction
    // that read first and writes second (TypeORM's deferred BEGIN) could not write after that.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(${JSON.stringify(db.url.slice('sqlite:'.length))});
         db.exec('BEGIN IMMEDIATE');
         db.exec('CREATE TABLE IF NOT EXISTS lock_holder (x INTEGER)');
         db.exec('INSERT INTO lock_holder VALUES (1)');
         process.stdout.write('locked\\n');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);`,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await once(holder.stdout, 'data');
    await runtime.cancel(queued.runId, 'the operator changed their mind');
    expect(await once(holder, 'exit')).toEqual([0, null]);
    await expect(runtime.handle(queued.runId).status()).resolves.toBe('cancelled');
  });
});
