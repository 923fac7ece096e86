import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { readStepLedger } from './fixtures/StepLedger';
import { WorkerProcess } from './support/WorkerProcess';

const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

describe.each(BACKENDS)('inline steps killed with SIGKILL, on %s', (backend) => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    dir = mkdtempSync(join(tmpdir(), 'waymark-inline-'));
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a process killed between inline steps is resumed by the next: no completed step runs again', async () => {
    const ledger = join(dir, 'ledger');
    const args = [db.url, ledger, join(dir, 'killed')];
    const first = WorkerProcess.start('test/crash/fixtures/inlineWorker.ts', args);
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const second = WorkerProcess.start('test/crash/fixtures/inlineWorker.ts', args, {
      timeoutMs: 60_000,
    });
    const line = await second.waitForLine((l) => l.startsWith('result '));
    await second.succeeded();
    expect(JSON.parse(line.slice('result '.length))).toEqual([
      'hotel in lisbon',
      'flight in lisbon',
      'car in lisbon',
      'dinner in lisbon',
    ]);
    const bodies = readStepLedger(ledger);
    expect(bodies.map((e) => e.step)).toEqual(['hotel', 'flight', 'car', 'dinner']);
    expect(bodies.map((e) => e.pid)).toEqual([first.pid, first.pid, second.pid, second.pid]);
  }, 90_000);
});
