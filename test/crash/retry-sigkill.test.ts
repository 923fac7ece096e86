import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Waymark, type StepRecord } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { MAX_ATTEMPTS, type AttemptEntry } from './fixtures/UnavailableQuotes';
import { WorkerProcess } from './support/WorkerProcess';

const WORKER = 'test/crash/fixtures/retryWorker.ts';
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb'];

/** One SIGKILL scenario: its own database, ledger file and order (hence run id). */
interface Scenario {
  db: TestDatabase;
  ledgerPath: string;
  orderId: string;
  runId: string;
}

describe.each(BACKENDS)('a @Retry step in a child process killed with SIGKILL on %s', (backend) => {
  const databases: TestDatabase[] = [];
  const workers: WorkerProcess[] = [];
  let dir: string;

  const scenario = async (name: string): Promise<Scenario> => {
    const db = await createTestDatabase(backend);
    databases.push(db);
    const orderId = `${backend}-${name}`;
    return {
      db,
      ledgerPath: join(dir, `${name}.ledger`),
      orderId,
      runId: `unavailable-quote-${orderId}`,
    };
  };
  const startWorker = (s: Scenario, slowAttempt?: number): WorkerProcess => {
    const args = [s.db.url, s.ledgerPath, s.orderId];
    if (slowAttempt !== undefined) args.push(String(slowAttempt));
    const worker = WorkerProcess.start(WORKER, args);
    workers.push(worker);
    return worker;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'waymark-retry-sigkill-'));
  });

  afterAll(async () => {
    for (const worker of workers) worker.kill();
    await Promise.all(workers.map((w) => w.exited.catch(() => undefined)));
    for (const db of databases) await db.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a kill during the backoff after attempt 2 does not reset the budget: the next process runs attempts 3 and 4, then throws RetriesExhaustedError', async () => {
    const s = await scenario('backoff');
    const first = startWorker(s);
    await first.waitForLine((line) => line.startsWith('retrying 2 '));
    first.kill();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const second = startWorker(s);
    await second.succeeded();

    const ledger = readLedger(s.ledgerPath);
    expect(ledger.map((e) => [e.pid, e.attempt])).toEqual([
      [first.pid, 1],
      [first.pid, 2],
      [second.pid, 3],
      [second.pid, 4],
    ]);
    expect(new Set(ledger.map((e) => e.key))).toEqual(new Set([`${s.runId}:0`]));
    expect(retryingLines(first)).toEqual(['retrying 1 300', 'retrying 2 300']);
    expect(retryingLines(second)).toEqual(['retrying 3 300']);
    expect(second.lines).toContain('error RetriesExhaustedError');
    expect(second.lines).toContain(`attempts ${MAX_ATTEMPTS}`);
    await expectExhaustedRun(s);
  }, 30_000);

  it('a kill during attempt 3 re-runs attempt 3 in the next process and stops at attempt 4, never a fifth', async () => {
    const s = await scenario('in-attempt');
    const first = startWorker(s, 3);
    await first.waitForLine((line) => line === 'attempt 3');
    first.kill();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const second = startWorker(s, 3);
    await second.succeeded();

    const ledger = readLedger(s.ledgerPath);
    // Attempt 3 was cut off before its failure was stored, so it runs again: its slot in
    // the budget is taken once, by the execution whose failure was stored.
    expect(ledger.map((e) => [e.pid, e.attempt])).toEqual([
      [first.pid, 1],
      [first.pid, 2],
      [first.pid, 3],
      [second.pid, 3],
      [second.pid, 4],
    ]);
    expect(Math.max(...ledger.map((e) => e.attempt))).toBe(MAX_ATTEMPTS);
    expect(ledger.filter((e) => e.pid === second.pid)).toHaveLength(2);
    expect(new Set(ledger.map((e) => e.key))).toEqual(new Set([`${s.runId}:0`]));
    expect(retryingLines(first)).toEqual(['retrying 1 300', 'retrying 2 300']);
    expect(retryingLines(second)).toEqual(['retrying 3 300']);
    expect(second.lines).toContain('error RetriesExhaustedError');
    expect(second.lines).toContain(`attempts ${MAX_ATTEMPTS}`);
    await expectExhaustedRun(s);
  }, 30_000);
});

/** Reads the run in this process, once the children are gone: failed after 4 attempts. */
async function expectExhaustedRun(s: Scenario): Promise<void> {
  const runtime = await Waymark.create({ database: s.db.url });
  let status: string;
  let history: StepRecord[];
  try {
    status = await runtime.handle(s.runId).status();
    history = await runtime.history(s.runId);
  } finally {
    await runtime.close();
  }
  expect(status).toBe('failed');
  expect(history).toHaveLength(1);
  expect(history[0]).toMatchObject({
    seq: 0,
    name: 'fetchQuote',
    status: 'failed',
    attempts: MAX_ATTEMPTS,
    error: { name: 'RetriesExhaustedError' },
  });
  expect(history[0].error?.message).toBe(
    `step "fetchQuote" failed ${MAX_ATTEMPTS} time(s); last: ServiceUnavailableError: ` +
      `HTTP 503 for the quote of ${s.orderId} on attempt ${MAX_ATTEMPTS}`,
  );
}

function readLedger(path: string): AttemptEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AttemptEntry);
}

function retryingLines(worker: WorkerProcess): string[] {
  return worker.lines.filter((line) => line.startsWith('retrying '));
}
