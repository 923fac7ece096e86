import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container } from 'tsyringe';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { FanOutWorkflow } from './fixtures/FanOutWorkflow';
import { readStepLedger, STEP_LEDGER_PATH } from './fixtures/StepLedger';
import { WorkerProcess } from './support/WorkerProcess';

const CHILDREN = 1000;
const CONCURRENCY = 20;
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];
const squares = Array.from({ length: CHILDREN }, (_, i) => i * i);

describe.each(BACKENDS)(`fan-out to ${CHILDREN} child runs on %s`, (backend) => {
  let db: TestDatabase;
  let dir: string;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    dir = mkdtempSync(join(tmpdir(), 'waymark-fan-out-'));
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`ctx.all runs ${CHILDREN} children ${CONCURRENCY} at a time, results in call order, each child once and memoized in the parent`, async () => {
    const ledgerPath = join(dir, 'in-process.ledger');
    const scope = container.createChildContainer();
    scope.register(STEP_LEDGER_PATH, { useValue: ledgerPath });
    const runtime: WaymarkRuntime = await Waymark.create({ database: db.url, container: scope });
    try {
      let running = 0;
      let most = 0;
      runtime.on('run.started', (e) => {
        if (e.workflow === 'fan-out.child') most = Math.max(most, ++running);
      });
      runtime.on('run.completed', (e) => {
        if (e.workflow === 'fan-out.child') running--;
      });
      const workflow = scope.resolve(FanOutWorkflow);
      await expect(workflow.parent('in-process', CHILDREN, CONCURRENCY)).resolves.toEqual(squares);
      expect(most).toBeLessThanOrEqual(CONCURRENCY);
      const history = await runtime.history('fan-in-process');
      expect(history).toHaveLength(CHILDREN);
      expect(history.every((step) => step.status === 'completed')).toBe(true);
      // Called again: the stored result, no child started.
      await expect(workflow.parent('in-process', CHILDREN, CONCURRENCY)).resolves.toEqual(squares);
      const ledger = readStepLedger(ledgerPath);
      expect(new Set(ledger.map((e) => e.runId)).size).toBe(CHILDREN);
      expect(ledger).toHaveLength(CHILDREN);
    } finally {
      await runtime.close();
    }
  }, 60_000);

  it('a parent SIGKILLed mid-fan-out resumes in a new process without starting any child twice', async () => {
    const ledgerPath = join(dir, 'killed.ledger');
    const args = [db.url, ledgerPath, 'killed', String(CHILDREN), String(CONCURRENCY)];
    const script = 'test/crash/fixtures/fanOutWorker.ts';
    // The first process kills itself once it started a quarter of the children.
    const first = WorkerProcess.start(script, [...args, String(CHILDREN / 4)], {
      timeoutMs: 50_000,
    });
    const startedChildren = (p: WorkerProcess) =>
      p.lines.filter((l) => l.startsWith('run.started fan-killed/'));
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = WorkerProcess.start(script, args, { timeoutMs: 50_000 });
    const result = await second.waitForLine((l) => l.startsWith('result '));
    await second.succeeded();
    expect(JSON.parse(result.slice('result '.length))).toEqual(squares);

    const before = startedChildren(first).map((l) => l.split(' ')[1]);
    const after = startedChildren(second).map((l) => l.split(' ')[1]);
    expect(before.length).toBeGreaterThan(0);
    expect(before.length).toBeLessThan(CHILDREN);
    // No child run was started twice: none the first process started (or had created when
    // it died, before it could say so) was started again; the second took those over.
    const resumed = second.lines
      .filter((l) => l.startsWith('run.resumed fan-killed/'))
      .map((l) => l.split(' ')[1]);
    expect(after.filter((id) => before.includes(id) || resumed.includes(id))).toEqual([]);
    expect(new Set(after).size).toBe(after.length);
    const seen = new Set([...before, ...after, ...resumed]);
    expect([...seen].sort()).toEqual(
      Array.from({ length: CHILDREN }, (_, i) => `fan-killed/${i}`).sort(),
    );
    expect(second.lines).toContain('run.resumed fan-killed');
    // A child body ran twice only if it was in flight when the parent's process died.
    const ledger = readStepLedger(ledgerPath);
    const bodies = new Map<string, number>();
    for (const e of ledger) bodies.set(e.runId, (bodies.get(e.runId) ?? 0) + 1);
    const twice = [...bodies].filter(([, count]) => count > 1).map(([runId]) => runId);
    expect(twice.length).toBeLessThanOrEqual(CONCURRENCY);
    expect(twice.filter((runId) => !resumed.includes(runId))).toEqual([]);
    expect(bodies.size).toBe(CHILDREN);
  }, 60_000);
});
