import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import type { RateBranchResult, SeenError } from './fixtures/RateBranchFlow';
import { WorkerProcess } from './support/WorkerProcess';

const WORKER = 'test/crash/fixtures/rateBranchWorker.ts';
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

/**
 * A step error too large to store whole is cut to fit: the workflow that catches it live sees
 * what is stored — name and code kept, the message cut and marked — so the replay after a
 * SIGKILL takes the branch the live run took.
 */
describe.each(BACKENDS)('a step error over the size limit, on %s', (backend) => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    dir = mkdtempSync(join(tmpdir(), 'waymark-rate-branch-'));
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the live run and its replay after SIGKILL see the same error and take the same branch', async () => {
    const first = WorkerProcess.start(WORKER, [db.url, dir, backend], { timeoutMs: 60_000 });
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const second = WorkerProcess.start(WORKER, [db.url, dir, backend], { timeoutMs: 60_000 });
    const line = await second.waitForLine((l) => l.startsWith('result '));
    await second.succeeded();
    const result = JSON.parse(line.slice('result '.length)) as RateBranchResult;

    const seen = readFileSync(join(dir, 'seen.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as SeenError);
    expect(seen).toHaveLength(2); // live, then replayed
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toMatchObject({ name: 'Error', code: 'E_RATE', cut: true });
    expect(seen[0].messageLength).toBeLessThan(1_048_576);
    expect(result).toEqual({ seen: seen[0], took: 'waited for quota' });
  }, 90_000);
});
