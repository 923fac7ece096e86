import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { WorkerProcess } from './support/WorkerProcess';

const WORKER = 'test/crash/fixtures/defaultOptionsWorker.ts';
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
    const first = WorkerProcess.start(WORKER, [db.url, ledger, 'order-1']);
    await first.waitForLine((line) => line === 'completed 2 priceLines');
    first.kill();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const second = WorkerProcess.start(WORKER, [db.url, ledger, 'order-1'], { timeoutMs: 60_000 });
    const ready = Number((await second.waitForLine((l) => l.startsWith('ready '))).split(' ')[1]);
    const done = await second.waitForLine((l) => l.startsWith('result '));
    await second.succeeded();
    // Three steps (or, if the kill came late, the parallel pair too) were recorded.
    expect(second.lines.filter((l) => /^resumed [345]$/.test(l))).toHaveLength(1);
    expect(Number(done.split(' ')[1]) - ready).toBeLessThan(RESUME_WITHIN_MS);
    // It says why it could go on at once.
    expect(second.stderr).toMatch(/1 run\(s\) were left running by processes on this host/);
  }, 90_000);
});
