import {
  InvalidArgumentError,
  MAX_HISTORY_PAGE,
  RunNotFoundError,
  Waymark,
  dataSourceOptionsFromUrl,
  type Logger,
  type StepRecord,
  type WaymarkRuntime,
} from 'waymark';
import { QueryCounter } from '../support/QueryCounter';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import { seedHistory } from '../support/seedHistory';

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Every record of the run, read page by page in `order`. */
async function walk(
  runtime: WaymarkRuntime,
  runId: string,
  limit: number,
  order: 'asc' | 'desc' = 'asc',
): Promise<{ records: StepRecord[]; pages: number }> {
  const records: StepRecord[] = [];
  let pages = 0;
  for (let from: number | undefined; ;) {
    const page = await runtime.history(runId, { from, limit, order });
    pages++;
    expect(page.length).toBeLessThanOrEqual(limit);
    records.push(...page);
    if (page.length < limit) return { records, pages };
    from = page[page.length - 1].seq + (order === 'asc' ? 1 : -1);
    if (from < 0) return { records, pages };
  }
}

describe.each(ALL_BACKENDS)('history pages on %s', (backend) => {
  let db: TestDatabase;
  let runtime: WaymarkRuntime;
  const runId = `paged-${backend}`;
  const counter = new QueryCounter();

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    runtime = await Waymark.create({
      database: { ...dataSourceOptionsFromUrl(db.url), logging: ['query'], logger: counter },
      logger: quiet,
    });
    // 300 seqs: outcomes, a failed one, two retried before they completed, and three with
    // failed attempts only (being retried, so no outcome row) — one of them the last seq.
    await seedHistory(runtime.dataSource, {
      runId,
      steps: 300,
      failed: [7],
      retried: [10, 150],
      retrying: [100, 101, 299],
      status: 'waiting',
      waitingFor: 'retry',
    });
  });
  afterAll(async () => {
    await runtime?.close({ grace: 0 });
    await db?.drop();
  });

  it('reads page by page exactly the records of the whole history, in either order', async () => {
    const whole = await runtime.history(runId);
    expect(whole).toHaveLength(300);
    expect(whole.filter((s) => s.status === 'retrying').map((s) => s.seq)).toEqual([100, 101, 299]);
    expect(whole[10]).toMatchObject({ seq: 10, status: 'completed', attempts: 3 });
    expect(whole[7]).toMatchObject({ seq: 7, status: 'failed', error: { message: 'boom' } });
    for (const limit of [1, 7, 100, MAX_HISTORY_PAGE]) {
      const asc = await walk(runtime, runId, limit);
      expect(asc.records).toEqual(whole);
      expect(asc.pages).toBe(Math.floor(300 / limit) + 1);
      const desc = await walk(runtime, runId, limit, 'desc');
      expect(desc.records).toEqual([...whole].reverse());
    }
  });

  it('starts a page at any seq, with or without an outcome row there', async () => {
    const page = await runtime.history(runId, { from: 99, limit: 4 });
    expect(page.map((s) => [s.seq, s.status])).toEqual([
      [99, 'completed'],
      [100, 'retrying'],
      [101, 'retrying'],
      [102, 'completed'],
    ]);
    const latest = await runtime.history(runId, { order: 'desc', limit: 2 });
    expect(latest.map((s) => s.seq)).toEqual([299, 298]);
    expect(await runtime.history(runId, { from: 300 })).toEqual([]);
    expect(await runtime.handle(runId).history({ from: 298 })).toHaveLength(2);
  });

  it('reads a page in a fixed number of queries, whatever the length of the history', async () => {
    counter.reset();
    await runtime.history(runId, { from: 50, limit: 100 });
    // The run row, the page's seqs, their rows.
    expect(counter.reads).toHaveLength(3);
    expect(counter.statements).toHaveLength(3);
  });

  it('refuses a malformed page and an unknown run', async () => {
    for (const [page, message] of [
      [{ from: -1 }, 'history(): from must be a sequence number'],
      [{ from: 1.5 }, 'history(): from must be a sequence number'],
      [{ from: 2 ** 31 }, 'history(): from must be a sequence number'],
      [{ limit: 0 }, `history(): limit must be a whole number from 1 to ${MAX_HISTORY_PAGE}`],
      [{ limit: MAX_HISTORY_PAGE + 1 }, 'history(): limit must be a whole number'],
      [{ order: 'sideways' }, "history(): order must be 'asc' or 'desc'"],
    ] as const) {
      const error: unknown = await runtime.history(runId, page as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toContain(message);
    }
    await expect(runtime.history('no-such-run', { limit: 5 })).rejects.toThrow(RunNotFoundError);
  });
});
