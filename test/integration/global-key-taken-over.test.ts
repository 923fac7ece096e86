import { container as rootContainer, inject, injectable } from 'tsyringe';
import { DataSource } from 'typeorm';
import {
  Idempotent,
  Step,
  Waymark,
  Workflow,
  WorkflowContext,
  dataSourceOptionsFromUrl,
  type WaymarkRuntime,
} from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { RecordingLogger } from '../support/RecordingLogger';
import { StepHold } from '../support/StepHold';

const HOLD = Symbol('HOLD');

/** Which runtime's body ran for which run. */
const bodies: string[] = [];

@injectable()
class Invoicing {
  constructor(
    private readonly ctx: WorkflowContext,
    @inject(HOLD) private readonly hold: StepHold,
  ) {}

  @Workflow({
    name: 'key-taken-over',
    id: (invoice: string, caller: string) => `${invoice}-${caller}`,
  })
  async bill(invoice: string, _caller: string): Promise<string> {
    return this.issue(invoice);
  }

  @Step()
  @Idempotent({ scope: 'global', key: (invoice: string) => `invoice-${invoice}` })
  async issue(_invoice: string): Promise<string> {
    bodies.push(`${this.hold.who} ${this.ctx.runId}`);
    await this.hold.pass(this.ctx.runId);
    return `issued by ${this.hold.who}`;
  }
}

const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

/**
 * Run A holds a global key and is frozen in its body past its lease; run B finds the key's
 * holder gone, takes the key over, runs the body and completes the key. When A wakes, its own
 * run was never taken over, so its checkpoint is not fenced out — but the key has moved on.
 * Every run under one key must get that key's one result: A takes B's, as a run arriving after
 * B would. (Found by the fault simulator, MariaDB seed 1: "key once: 2 different results".)
 */
describe.each(BACKENDS)('a global key taken over from a frozen holder on %s', (backend) => {
  let db: TestDatabase;
  let admin: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    admin = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
  });
  afterAll(async () => {
    await admin?.destroy();
    await db?.drop();
  });

  function open(hold: StepHold, logger: RecordingLogger): Promise<WaymarkRuntime> {
    const scope = rootContainer.createChildContainer();
    scope.register(HOLD, { useValue: hold });
    return Waymark.create({ database: db.url, container: scope, logger });
  }

  async function lapse(runId: string): Promise<void> {
    const placeholder = backend === 'postgres' ? '$1' : '?';
    await admin.query(`UPDATE waymark_runs SET lease_expires_at = 0 WHERE id = ${placeholder}`, [
      runId,
    ]);
  }

  it('gives the woken holder the result the key completed with, not its own', async () => {
    bodies.length = 0;
    const invoice = `inv-${backend}`;
    const holdA = new StepHold('A', 1);
    const logA = new RecordingLogger([]);
    const logB = new RecordingLogger([]);
    const a = await open(holdA, logA);
    const b = await open(new StepHold('B', 0), logB);
    try {
      const byA = a.run(Invoicing, 'bill', [invoice, 'A']);
      await holdA.allHeld;
      await lapse(`${invoice}-A`);

      await expect(b.run(Invoicing, 'bill', [invoice, 'B'])).resolves.toBe('issued by B');
      holdA.open();
      await expect(byA).resolves.toBe('issued by B');

      // Both bodies ran (A's before the key moved on: the documented at-least-once window),
      // and both histories hold the key's one result.
      expect(bodies).toEqual([`A ${invoice}-A`, `B ${invoice}-B`]);
      for (const caller of ['A', 'B']) {
        const history = await a.history(`${invoice}-${caller}`);
        expect(history.map((s) => [s.status, s.output?.json])).toEqual([
          ['completed', '"issued by B"'],
        ]);
      }
      // Calling A again replays that result.
      await expect(a.run(Invoicing, 'bill', [invoice, 'A'])).resolves.toBe('issued by B');
      expect(logA.unexpected()).toEqual([]);
      expect(logB.unexpected()).toEqual([]);
    } finally {
      holdA.open();
      await a.close();
      await b.close();
    }
  });
});
