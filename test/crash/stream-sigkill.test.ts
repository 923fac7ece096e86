import { Waymark, type StreamEntry, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { WorkerProcess } from './support/WorkerProcess';

const WORKER = 'test/crash/fixtures/streamWorker.ts';
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];
const TOKENS = 300;
const tokens = (n: number): string[] => [...Array(n).keys()].map((i) => `t${i}`);

describe.each(BACKENDS)('a stream written by another process on %s', (backend) => {
  let db: TestDatabase;
  let reader: WaymarkRuntime;
  const workers: WorkerProcess[] = [];
  const start = (id: string, delayMs: number): WorkerProcess => {
    const worker = WorkerProcess.start(WORKER, [db.url, id, String(TOKENS), String(delayMs)], {
      timeoutMs: 30_000,
    });
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    reader = await Waymark.create({ database: db.url });
  });
  afterAll(async () => {
    for (const worker of workers) worker.kill();
    await Promise.all(workers.map((w) => w.exited.catch(() => undefined)));
    await reader?.close({ grace: 0 });
    await db.drop();
  });

  /** Waits until the run exists (the child has stored it). */
  const stored = async (runId: string): Promise<void> => {
    for (;;) {
      if ((await reader.list({ limit: 1000 })).runs.some((r) => r.runId === runId)) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('a reader here follows the chunks live while the child writes them, and ends when the stream closes', async () => {
    const worker = start(`${backend}-live`, 2);
    const runId = `narrate-${backend}-live`;
    await stored(runId);
    const entries: Array<StreamEntry<string>> = [];
    let beforeDone = 0;
    for await (const entry of reader.readStream<string>(runId, 'tokens')) {
      entries.push(entry);
      if (!worker.lines.some((l) => l.startsWith('done'))) beforeDone++;
    }
    await worker.succeeded();
    expect(entries.map((e) => e.offset)).toEqual([...Array(TOKENS).keys()]);
    expect(entries.map((e) => e.chunk)).toEqual(tokens(TOKENS));
    expect(beforeDone).toBeGreaterThan(0);
  }, 40_000);

  it('after a SIGKILL mid-stream, the resumed step is preceded by a restart marker, and offsets stay consecutive', async () => {
    const id = `${backend}-killed`;
    const runId = `narrate-${id}`;
    const first = start(id, 3);
    await stored(runId);
    const before: Array<StreamEntry<string>> = [];
    for await (const entry of reader.readStream<string>(runId, 'tokens')) {
      before.push(entry);
      if (before.length >= 40) break;
    }
    first.kill();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const second = start(id, 0);
    const entries: Array<StreamEntry<string>> = [];
    for await (const entry of reader.readStream<string>(runId, 'tokens')) entries.push(entry);
    await second.succeeded();
    expect(second.lines).toContain('resumed');

    const marker = entries.findIndex((e) => e.restart !== undefined);
    expect(marker).toBeGreaterThanOrEqual(40);
    expect(entries.map((e) => e.offset)).toEqual([...Array(entries.length).keys()]);
    expect(entries.slice(0, 40)).toEqual(before);
    expect(entries.slice(0, marker).map((e) => e.chunk)).toEqual(tokens(marker));
    expect(entries[marker]).toEqual({
      offset: marker,
      seq: 0,
      restart: { step: 'tell', seq: 0, attempt: expect.any(Number) },
    });
    expect(entries.slice(marker + 1).map((e) => e.chunk)).toEqual(tokens(TOKENS));
  }, 40_000);
});
