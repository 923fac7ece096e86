import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { WorkerProcess } from './support/WorkerProcess';

const WORKER = 'test/crash/fixtures/ledgerWorker.ts';
const ARGS = (db: TestDatabase, ledger: string) => [db.url, ledger, 'order-1', '--default-options'];
/** The README's promise: "kill it and run it again" resumes at once, not after the lease. */
const RESUME_WITHIN_MS = 5_000;
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

describe.each(BACKENDS)('kill it and run it again, with default options, on %s', (backend) => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    dir = mkdtempSync(join(tmpdir(), 'waymark-rerun-'));
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`a re-run on the same host resumes the killed run within ${RESUME_WITHIN_MS / 1000} s, not after its 30 s lease`, async () => {
    const ledger = join(dir, 'steps.ledger');
    const first = WorkerProcess.start(WORKER, ARGS(db, ledger));
    await first.waitForLine((line) => line === 'completed 2 priceLines');
    first.kill();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const second = WorkerProcess.start(WORKER, ARGS(db, ledger), { timeoutMs: 60_000 });
    await second.waitForLine((l) => l.startsWith('ready '));
    const ready = Date.now(); // the runtime is open: Node's and SWC's start-up are behind
    await second.waitForLine((l) => l.startsWith('result '));
    const resumedAfter = Date.now() - ready;
    await second.succeeded();
    // Three steps (or, if the kill came late, the parallel pair too) were recorded.
    expect(second.lines.filter((l) => /^resumed [345]$/.test(l))).toHaveLength(1);
    expect(resumedAfter).toBeLessThan(RESUME_WITHIN_MS);
    // It resumed the run itself, so it has nothing to say about runs left running.
    expect(second.stderr).not.toMatch(/left running by processes on this host/);
  }, 90_000);
});
