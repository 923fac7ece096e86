import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Waymark, type RunHandle, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { FleetJobs, type FleetEntry } from './fixtures/FleetJobs';
import { declareFleetFlows } from './fixtures/fleetFlows';
import { WorkerProcess } from './support/WorkerProcess';

const WORKERS = 4;
const BACKENDS: Backend[] = ['mariadb', 'postgres', 'sqlite-file'];

describe.each(BACKENDS)(
  `queues and limiters across ${WORKERS} worker processes on %s`,
  (backend) => {
    let db: TestDatabase;
    let dir: string;
    let ledger: string;
    /** Starts runs and reads the database; it runs no worker, so it executes nothing. */
    let producer: WaymarkRuntime;
    const workers: WorkerProcess[] = [];

    beforeAll(async () => {
      db = await createTestDatabase(backend);
      dir = mkdtempSync(join(tmpdir(), 'waymark-fleet-'));
      ledger = join(dir, 'ledger');
      producer = await Waymark.create({ database: db.url });
      declareFleetFlows(producer);
      const args = [db.url, ledger, join(dir, 'first-call')];
      for (let i = 0; i < WORKERS; i++) {
        workers.push(
          WorkerProcess.start('test/crash/fixtures/fleetWorker.ts', args, { timeoutMs: 90_000 }),
        );
      }
      await Promise.all(workers.map((w) => w.waitForLine((line) => line.startsWith('ready '))));
    });

    afterAll(async () => {
      for (const worker of workers) worker.kill();
      await Promise.all(workers.map((w) => w.exited.catch(() => undefined)));
      await producer?.close({ grace: 0 });
      await db?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const entries = (): FleetEntry[] =>
      existsSync(ledger)
        ? readFileSync(ledger, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line) as FleetEntry)
        : [];

    async function startJobs(queue: string, tenant: string, count: number, ms: number) {
      const handles: Array<RunHandle<number>> = [];
      for (let n = 0; n < count; n++) {
        handles.push(await producer.start(FleetJobs, 'job', [tenant, n, ms], { queue }));
      }
      return handles;
    }

    it('a queue with concurrency 3 never has more than 3 runs executing, sampled by the runs', async () => {
      const handles = await startJobs('three-at-once', 'c3', 24, 40);
      await Promise.all(handles.map((h) => h.result()));
      const mine = entries().filter((e) => e.tenant === 'c3');
      expect(mine.filter((e) => e.kind === 'enter')).toHaveLength(24);
      expect(maxOverlap(mine)).toBeLessThanOrEqual(3);
    });

    it('a rate limit of 10 per second is never exceeded in any 1 s window of recorded starts', async () => {
      const handles = await startJobs('ten-per-second', 'r10', 30, 5);
      await Promise.all(handles.map((h) => h.result()));
      const rows = await producer.dataSource.query<Array<{ started_at: unknown }>>(
        "SELECT started_at FROM waymark_runs WHERE queue_name = 'ten-per-second'",
      );
      const starts = rows.map((r) => Number(r.started_at)).sort((a, b) => a - b);
      expect(starts).toHaveLength(30);
      expect(busiestWindow(starts, 1000)).toBeLessThanOrEqual(10);
      const bodies = entries()
        .filter((e) => e.tenant === 'r10' && e.kind === 'enter')
        .map((e) => e.at);
      expect(bodies).toHaveLength(30);
    });

    it('per-key concurrency 1 holds per tenant while another tenant proceeds', async () => {
      const big = await startJobs('one-per-tenant', 'big', 10, 60);
      const small = await startJobs('one-per-tenant', 'small', 3, 60);
      await Promise.all([...big, ...small].map((h) => h.result()));
      const all = entries();
      const bigRuns = all.filter((e) => e.tenant === 'big');
      const smallRuns = all.filter((e) => e.tenant === 'small');
      expect(maxOverlap(bigRuns)).toBe(1);
      expect(maxOverlap(smallRuns)).toBe(1);
      // The small tenant was not held back behind the big one's ten runs.
      const lastBig = Math.max(...bigRuns.filter((e) => e.kind === 'leave').map((e) => e.at));
      const lastSmall = Math.max(...smallRuns.filter((e) => e.kind === 'leave').map((e) => e.at));
      expect(lastSmall).toBeLessThan(lastBig);
      expect(maxOverlap([...bigRuns, ...smallRuns])).toBe(2);
    });

    it("a limiter's 429 with Retry-After pauses every worker until then", async () => {
      const handles: Array<RunHandle<string>> = [];
      for (let n = 0; n < 12; n++)
        handles.push(await producer.start(FleetJobs, 'call', [n], { queue: true }));
      const results = await Promise.all(handles.map((h) => h.result()));
      expect(results).toEqual(Array.from({ length: 12 }, (_, n) => `answer ${n}`));
      const all = entries();
      const limited = all.find((e) => e.kind === '429')!;
      const attempts = all.filter((e) => e.kind === 'attempt');
      expect(attempts).toHaveLength(13);
      // The limiter lets one attempt in at a time: the first attempt is the one answered 429.
      expect(attempts[0]).toMatchObject({ id: limited.id, pid: limited.pid });
      const after = attempts.slice(1);
      expect(after).toHaveLength(12);
      for (const attempt of after) expect(attempt.at).toBeGreaterThanOrEqual(limited.at + 2000);
    });
  },
);

/** The most runs executing at once, from their enter and leave lines (a leave first on a tie). */
function maxOverlap(entries: FleetEntry[]): number {
  const moves = entries
    .filter((e) => e.kind === 'enter' || e.kind === 'leave')
    .map((e) => ({ at: e.at, delta: e.kind === 'enter' ? 1 : -1 }))
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  let now = 0;
  let max = 0;
  for (const move of moves) max = Math.max(max, (now += move.delta));
  return max;
}

/** The most of the sorted times `at` that fall in any window [t, t + windowMs). */
function busiestWindow(times: number[], windowMs: number): number {
  let max = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= windowMs) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}
