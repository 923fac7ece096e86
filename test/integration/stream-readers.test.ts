import { Waymark, dataSourceOptionsFromUrl, type WaymarkRuntime } from 'waymark';
import { QueryCounter } from '../support/QueryCounter';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { seedHistory } from '../support/seedHistory';
import { seedStream } from '../support/seedStream';

const CHUNKS = 10;

/**
 * Readers in one process of a run waiting in another (here: a run row no runtime executes,
 * ended by an UPDATE as another process would end it).
 */
describe.each<Backend>(['sqlite-file', 'postgres'])('readers of a waiting run on %s', (backend) => {
  let db: TestDatabase;
  let writer: WaymarkRuntime;
  let reader: WaymarkRuntime;
  const counter = new QueryCounter();

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    writer = await Waymark.create({ database: db.url });
    reader = await Waymark.create({
      database: { ...dataSourceOptionsFromUrl(db.url), logging: ['query'], logger: counter },
      migrate: false,
    });
  });
  afterAll(async () => {
    await reader?.close({ grace: 0 });
    await writer?.close({ grace: 0 });
    await db?.drop();
  });

  /** Statements `readers` readers of a waiting run cost, from their start to their end. */
  async function costOf(readers: number): Promise<{ statements: number; read: number[] }> {
    const runId = `waiting-${readers}`;
    await seedHistory(writer.dataSource, { runId, steps: 1, status: 'waiting', waitingFor: 'go' });
    await seedStream(writer.dataSource, { runId, stream: 'llm', chunks: CHUNKS });
    counter.reset();
    const reading = Array.from({ length: readers }, async () => {
      let seen = 0;
      for await (const entry of reader.readStream<string>(runId, 'llm')) {
        if (entry.chunk !== undefined) seen++;
      }
      return seen;
    });
    // Long enough for many polls: a reader of its own would poll every 25 ms.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await writer.dataSource.query(
      backend === 'postgres'
        ? "UPDATE waymark_runs SET status = 'completed', waiting_for = NULL WHERE id = $1"
        : "UPDATE waymark_runs SET status = 'completed', waiting_for = NULL WHERE id = ?",
      [runId],
    );
    const read = await Promise.all(reading);
    return { statements: counter.statements.length, read };
  }

  it('200 readers cost at most 3× the statements of one, and all end when the run ends', async () => {
    const one = await costOf(1);
    const many = await costOf(200);
    expect(one.read).toEqual([CHUNKS]);
    expect(many.read).toEqual(Array(200).fill(CHUNKS));
    expect(one.statements).toBeGreaterThan(0);
    expect(many.statements).toBeLessThanOrEqual(3 * one.statements);
  });

  it('the poller stops when the last reader leaves', async () => {
    const runId = 'left-alone';
    await seedHistory(writer.dataSource, { runId, steps: 1, status: 'waiting', waitingFor: 'go' });
    await seedStream(writer.dataSource, { runId, stream: 'llm', chunks: 1 });
    const leave = new AbortController();
    const seen: number[] = [];
    for await (const entry of reader.readStream(runId, 'llm', { signal: leave.signal })) {
      seen.push(entry.offset);
      leave.abort();
    }
    expect(seen).toEqual([0]);
    counter.reset();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(counter.statements).toEqual([]);
  });
});
