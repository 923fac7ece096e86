import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import type { PurchaseOutcome } from './fixtures/ApprovalWorkflow';
import { readStepLedger } from './fixtures/StepLedger';
import { QueueWorker } from './support/QueueWorker';
import { WorkerProcess } from './support/WorkerProcess';

const STARTER = 'test/crash/fixtures/approvalStarter.ts';
const SENDER = 'test/crash/fixtures/signalSender.ts';
const ORDER_ID = 'order-42';
/** The run id `@Workflow({ id })` derives from the order. */
const RUN_ID = `purchase-${ORDER_ID}`;
const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;

describe('a run that waits for a human, across three processes on MariaDB', () => {
  let db: TestDatabase;
  let dir: string;
  /** Reads the store from the test process; it loads no workflow class, so it runs nothing. */
  let observer: WaymarkRuntime;
  const children: WorkerProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('mariadb');
    dir = mkdtempSync(join(tmpdir(), 'waymark-approval-'));
    observer = await Waymark.create({ database: db.url });
  });

  afterAll(async () => {
    for (const child of children) child.kill();
    await Promise.all(children.map((c) => c.exited.catch(() => undefined)));
    await observer?.close();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is started in one process, released while it waits, and finished by a worker once another process signals it', async () => {
    const ledgerPath = join(dir, 'approval.ledger');
    // B polls for the whole test, also while A executes the run under its lease.
    const b = QueueWorker.start(db.url, ledgerPath, { pollInterval: '100ms' });
    children.push(b.child);
    await b.polling();

    const a = WorkerProcess.start(STARTER, [db.url, ledgerPath, ORDER_ID]);
    children.push(a);
    await a.succeeded();
    expect(a.lines).toContain(`started ${RUN_ID}`);
    expect(a.lines).toContain('closed');
    const released = a.lines.find((line) => line.startsWith(`waiting ${RUN_ID} `));
    expect(released).toBeDefined();

    // A has exited: nobody holds the run, and it is not due for seven days.
    const waiting = await observer.handle(RUN_ID).describe();
    expect({ status: waiting.status, owner: waiting.owner }).toEqual({
      status: 'waiting',
      owner: null,
    });
    expect(waiting.wakeAt?.getTime()).toBeGreaterThan(Date.now() + SEVEN_DAYS_MS - 60_000);
    expect(steps(ledgerPath)).toEqual([
      { step: 'draft', pid: a.pid },
      { step: 'submit', pid: a.pid },
    ]);
    // B polled all along and left a run that is not due alone.
    expect(b.child.lines.filter((line) => line.includes(RUN_ID))).toEqual([]);

    const c = WorkerProcess.start(SENDER, [
      db.url,
      RUN_ID,
      'approval',
      JSON.stringify({ approved: true, by: 'dana' }),
    ]);
    children.push(c);
    await c.succeeded();
    const sentAt = Number(c.lines.find((l) => l.startsWith('sent '))?.split(' ')[3]);

    const completed = await b.next('run.completed', RUN_ID);
    const result = await observer.handle<PurchaseOutcome>(RUN_ID).result();
    expect(result).toEqual({
      orderId: ORDER_ID,
      receipt: `receipt-of-draft-${ORDER_ID}`,
      approval: { approved: true, by: 'dana' },
      placedBy: b.pid,
      status: 'placed',
    });
    expect(steps(ledgerPath)).toEqual([
      { step: 'draft', pid: a.pid },
      { step: 'submit', pid: a.pid },
      { step: 'place', pid: b.pid },
    ]);
    expect(await observer.handle(RUN_ID).status()).toBe('completed');
    expect((await observer.history(RUN_ID)).map((s) => [s.name, s.status])).toEqual([
      ['draft', 'completed'],
      ['submit', 'completed'],
      ['signal:approval', 'completed'],
      ['place', 'completed'],
    ]);
    // B took the run over from its stored history: replayed A's steps, ran only the last.
    expect(b.events('run.resumed', RUN_ID).map((e) => e.fields[1])).toEqual(['3']);
    expect(b.events('step.replayed', RUN_ID).map((e) => e.fields.slice(1))).toEqual([
      ['0', 'draft'],
      ['1', 'submit'],
    ]);
    expect(b.events('step.completed', RUN_ID).map((e) => e.fields.slice(1))).toEqual([
      ['2', 'signal:approval'],
      ['3', 'place'],
    ]);
    // With a 100 ms poll the worker should pick the signalled run up well within a second.
    expect(completed.at - sentAt).toBeLessThan(2_000);

    expect(await b.terminate()).toMatchObject({ code: 0, signal: null });
  }, 45_000);
});

function steps(ledgerPath: string): Array<{ step: string; pid: number }> {
  return readStepLedger(ledgerPath).map(({ step, pid }) => ({ step, pid }));
}
