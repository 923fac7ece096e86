import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import {
  invoiceKey,
  invoiceRunId,
  type Invoice,
  type InvoiceEntry,
} from './fixtures/GlobalInvoicing';
import { WorkerProcess } from './support/WorkerProcess';

const WORKER = 'test/crash/fixtures/globalKeyWorker.ts';
/** How long the body works in the concurrent case: both processes are inside the claim window. */
const BODY_MS = 500;
/**
 * The holder's body in the kill case: far longer than the moment it is killed, so the kill
 * always lands mid-body, however slow the machine.
 */
const HOLDER_BODY_MS = 5_000;
/** Time the waiter spends in its claim loop before the holder is killed (first poll: 25 ms). */
const WAITING_MS = 200;

const BACKENDS: Backend[] = ['mariadb', 'postgres'];

/** One database, ledger file and invoice per test. */
interface Scenario {
  db: TestDatabase;
  /** A runtime in the test process, for reading runs; it also applied the migrations. */
  inspector: WaymarkRuntime;
  ledgerPath: string;
  invoice: string;
}

describe.each(BACKENDS)('one global idempotency key in two processes on %s', (backend) => {
  const workers: WorkerProcess[] = [];
  const scenarios: Scenario[] = [];
  let root: string;

  const scenario = async (name: string): Promise<Scenario> => {
    const db = await createTestDatabase(backend);
    const inspector = await Waymark.create({ database: db.url });
    const s: Scenario = {
      db,
      inspector,
      ledgerPath: join(root, `${name}.ledger`),
      invoice: `${name}-${Date.now()}`,
    };
    scenarios.push(s);
    return s;
  };
  /** Starts the run of `caller`; it calls its workflow once `barrier` exists. */
  const startWorker = (s: Scenario, caller: string, barrier: string, bodyMs: number) => {
    const worker = WorkerProcess.start(WORKER, [
      s.db.url,
      s.ledgerPath,
      s.invoice,
      caller,
      barrier,
      String(bodyMs),
    ]);
    workers.push(worker);
    return worker;
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'waymark-global-key-'));
  });

  afterAll(async () => {
    for (const worker of workers) worker.kill();
    await Promise.all(workers.map((w) => w.exited.catch(() => undefined)));
    for (const s of scenarios) {
      await s.inspector.close();
      await s.db.drop();
    }
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('two runs racing for one global key execute the body once, and both get its result', async () => {
    const s = await scenario('concurrent');
    const barrier = join(root, 'concurrent.go');
    const a = startWorker(s, 'a', barrier, BODY_MS);
    const b = startWorker(s, 'b', barrier, BODY_MS);
    await Promise.all([a, b].map((w) => w.waitForLine((line) => line.startsWith('ready '))));
    writeFileSync(barrier, '');
    await Promise.all([a.succeeded(), b.succeeded()]);

    const ledger = readLedger(s.ledgerPath);
    expect(ledger).toHaveLength(1);
    const [entry] = ledger;
    const executor = entry.pid === a.pid ? a : b;
    const other = executor === a ? b : a;
    const runOf = (w: WorkerProcess) => invoiceRunId(s.invoice, w === a ? 'a' : 'b');
    expect(entry).toMatchObject({ pid: executor.pid, runId: runOf(executor) });
    expect(entry.key).toBe(invoiceKey(s.invoice));

    const expected: Invoice = {
      invoice: s.invoice,
      issuedBy: runOf(executor),
      pid: executor.pid,
      key: invoiceKey(s.invoice),
    };
    expect(resultOf(executor)).toEqual(expected);
    expect(resultOf(other)).toEqual(expected);

    // They really raced: both called their workflow at once, and the other run reached the
    // key while the body was still working.
    expect(Math.abs(goOf(a) - goOf(b))).toBeLessThan(BODY_MS / 2);
    expect(goOf(other)).toBeLessThan(entry.at + BODY_MS);
    expect(other.lines).toContain('claiming 0 issue');
    expect(executor.lines).toContain('completed 0 issue');
    expect(other.lines).toContain('replayed 0 issue');
    expect(other.lines).not.toContain('completed 0 issue');

    expect(await s.inspector.history(runOf(executor))).toEqual([
      expect.objectContaining({ seq: 0, name: 'issue', status: 'completed', attempts: 1 }),
    ]);
    expect(await s.inspector.history(runOf(other))).toEqual([
      expect.objectContaining({ seq: 0, name: 'issue', status: 'completed', attempts: 0 }),
    ]);
    expect(await s.inspector.handle(runOf(a)).status()).toBe('completed');
    expect(await s.inspector.handle(runOf(b)).status()).toBe('completed');
    expect(await keyRow(s, backend)).toEqual({ runId: runOf(executor), status: 'completed' });
  }, 30_000);

  it('a holder killed mid-body keeps the key while it lives; once its process is gone the waiter takes it over', async () => {
    const s = await scenario('killed');
    const holderRun = invoiceRunId(s.invoice, 'holder');
    const waiterRun = invoiceRunId(s.invoice, 'waiter');
    const holderGo = join(root, 'killed-holder.go');
    const waiterGo = join(root, 'killed-waiter.go');
    const holder = startWorker(s, 'holder', holderGo, HOLDER_BODY_MS);
    const waiter = startWorker(s, 'waiter', waiterGo, BODY_MS);
    await Promise.all(
      [holder, waiter].map((w) => w.waitForLine((line) => line.startsWith('ready '))),
    );

    // The holder claims the key and starts its body; then the waiter runs into the key.
    writeFileSync(holderGo, '');
    await holder.waitForLine((line) => line.startsWith('body '));
    writeFileSync(waiterGo, '');
    await waiter.waitForLine((line) => line === 'claiming 0 issue');
    await sleep(WAITING_MS);
    expect(await keyRow(s, backend)).toEqual({ runId: holderRun, status: 'started' });
    expect(await s.inspector.history(waiterRun)).toEqual([]);
    expect(await s.inspector.handle(waiterRun).status()).toBe('running');
    expect(readLedger(s.ledgerPath).map((e) => e.runId)).toEqual([holderRun]);

    holder.kill();
    const killedAt = Date.now();
    expect(await holder.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(holder.lines.filter((l) => /^(completed|result) /.test(l))).toEqual([]);
    await waiter.succeeded();

    // The waiter executed the body itself, once, and only after the holder died (on this host
    // it need not wait for the dead holder's lease to expire).
    const ledger = readLedger(s.ledgerPath);
    expect(ledger.map(({ runId, pid }) => ({ runId, pid }))).toEqual([
      { runId: holderRun, pid: holder.pid },
      { runId: waiterRun, pid: waiter.pid },
    ]);
    expect(ledger.map((e) => e.key)).toEqual([invoiceKey(s.invoice), invoiceKey(s.invoice)]);
    const holderLease = await leaseExpiresAt(s, backend, holderRun);
    expect(holderLease).toBeGreaterThan(killedAt); // its run still looked alive when it died
    expect(ledger[1].at).toBeGreaterThan(killedAt);
    const expected: Invoice = {
      invoice: s.invoice,
      issuedBy: waiterRun,
      pid: waiter.pid,
      key: invoiceKey(s.invoice),
    };
    expect(resultOf(waiter)).toEqual(expected);
    expect(waiter.lines).toContain('completed 0 issue');
    expect(await keyRow(s, backend)).toEqual({ runId: waiterRun, status: 'completed' });

    // The killed run, restarted, gets the waiter's stored result without executing the body.
    const restarted = startWorker(s, 'holder', holderGo, BODY_MS);
    await restarted.succeeded();
    expect(resultOf(restarted)).toEqual(expected);
    expect(restarted.lines).toContain('resumed 0');
    expect(restarted.lines).toContain('replayed 0 issue');
    expect(restarted.lines.filter((l) => l.startsWith('body '))).toEqual([]);
    expect(readLedger(s.ledgerPath)).toHaveLength(2);

    expect(await s.inspector.history(waiterRun)).toEqual([
      expect.objectContaining({ seq: 0, name: 'issue', status: 'completed', attempts: 1 }),
    ]);
    expect(await s.inspector.history(holderRun)).toEqual([
      expect.objectContaining({ seq: 0, name: 'issue', status: 'completed', attempts: 0 }),
    ]);
    expect(await s.inspector.handle(holderRun).status()).toBe('completed');
    expect(await s.inspector.handle(waiterRun).status()).toBe('completed');
  }, 30_000);
});

/** The stored holder and status of the scenario's key (read directly: no API exposes it). */
async function keyRow(
  s: Scenario,
  backend: Backend,
): Promise<{ runId: string; status: string } | undefined> {
  const param = backend === 'postgres' ? '$1' : '?';
  const rows: Array<{ run_id: string; status: string }> = await s.inspector.dataSource.query(
    `SELECT run_id, status FROM waymark_idempotency_keys WHERE idempotency_key = ${param}`,
    [invoiceKey(s.invoice)],
  );
  return rows[0] && { runId: rows[0].run_id, status: rows[0].status };
}

/** When the run's last lease runs out, in epoch ms (read directly: no API exposes it). */
async function leaseExpiresAt(s: Scenario, backend: Backend, runId: string): Promise<number> {
  const param = backend === 'postgres' ? '$1' : '?';
  const rows: Array<{ lease_expires_at: string | number | null }> =
    await s.inspector.dataSource.query(
      `SELECT lease_expires_at FROM waymark_runs WHERE id = ${param}`,
      [runId],
    );
  const lease = rows[0]?.lease_expires_at;
  if (lease === undefined || lease === null) throw new Error(`run "${runId}" has no lease`);
  return Number(lease);
}

function readLedger(path: string): InvoiceEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as InvoiceEntry);
}

function resultOf(worker: WorkerProcess): Invoice {
  const line = worker.lines.find((l) => l.startsWith('result '));
  if (!line) throw worker.failure('printed no result');
  return JSON.parse(line.slice('result '.length)) as Invoice;
}

/** When the worker called its workflow (it printed `go <epoch-ms>`). */
function goOf(worker: WorkerProcess): number {
  const line = worker.lines.find((l) => l.startsWith('go '));
  if (!line) throw worker.failure('printed no go line');
  return Number(line.slice('go '.length));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
