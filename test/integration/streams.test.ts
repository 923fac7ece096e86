import { container as rootContainer } from 'tsyringe';
import {
  InvalidArgumentError,
  NotInRunError,
  RunNotFoundError,
  SerializationError,
  Waymark,
  dataSourceOptionsFromUrl,
  type StreamEntry,
  type WaymarkRuntime,
} from 'waymark';
import { QueryCounter } from '../support/QueryCounter';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { Narrator, NarratorScript } from '../support/fixtures/Narrator';

const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

async function collect<T>(entries: AsyncIterable<StreamEntry<T>>): Promise<Array<StreamEntry<T>>> {
  const seen: Array<StreamEntry<T>> = [];
  for await (const entry of entries) seen.push(entry);
  return seen;
}

describe.each(BACKENDS)('durable streams on %s', (backend) => {
  let db: TestDatabase;
  let runtime: WaymarkRuntime;
  let script: NarratorScript;
  const counter = new QueryCounter();
  let n = 0;
  const id = (): string => `${backend}-${++n}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(() => db.drop());
  beforeEach(async () => {
    const scope = rootContainer.createChildContainer();
    script = new NarratorScript();
    scope.registerInstance(NarratorScript, script);
    runtime = await Waymark.create({
      database: { ...dataSourceOptionsFromUrl(db.url), logging: ['query'], logger: counter },
      container: scope,
    });
  });
  afterEach(() => runtime.close({ grace: 100 }));

  it('a reader sees every chunk in order, with consecutive offsets, and ends when the stream closes', async () => {
    const key = id();
    const handle = await runtime.start(Narrator, 'narrate', [key, 500]);
    const entries = await collect(runtime.readStream<string>(handle.runId, 'tokens'));
    expect(await handle.result()).toBe(500);
    expect(entries.map((e) => e.offset)).toEqual([...Array(500).keys()]);
    expect(entries.map((e) => e.chunk)).toEqual([...Array(500).keys()].map((i) => `t${i}`));
  });

  it('chunks are stored in batches, not one write per chunk', async () => {
    counter.reset();
    await runtime.run(Narrator, 'narrate', [id(), 2_000, false]);
    const inserts = counter.writes.filter((s) => /INTO waymark_stream_chunks/.test(s));
    // 2,000 chunks written without a pause: one batch (the step's end stores it).
    expect(inserts).toHaveLength(1);
  });

  it('chunks that trickle in are stored at most one write per 50 ms', async () => {
    script.tokenDelayMs = 1;
    counter.reset();
    const started = Date.now();
    await runtime.run(Narrator, 'narrate', [id(), 200, false]);
    const elapsedMs = Date.now() - started;
    const inserts = counter.writes.filter((s) => /INTO waymark_stream_chunks/.test(s)).length;
    expect(inserts).toBeGreaterThanOrEqual(1);
    // A batch is written when its 50 ms are up (or at the step's end): never one per chunk.
    expect(inserts).toBeLessThanOrEqual(Math.ceil(elapsedMs / 50) + 1);
    expect(inserts).toBeLessThan(200);
  });

  it('a reader that reconnects from an offset sees no duplicate and no gap, and ends with the run', async () => {
    const key = id();
    script.tokenDelayMs = 1;
    const handle = await runtime.start(Narrator, 'narrate', [key, 300, false]);
    const first: Array<StreamEntry<string>> = [];
    for await (const entry of runtime.readStream<string>(handle.runId, 'tokens')) {
      first.push(entry);
      if (first.length === 120) break;
    }
    const rest = await collect(
      runtime.readStream<string>(handle.runId, 'tokens', { from: first.at(-1)!.offset + 1 }),
    );
    const all = [...first, ...rest];
    expect(all.map((e) => e.offset)).toEqual([...Array(300).keys()]);
    expect(all.map((e) => e.chunk)).toEqual([...Array(300).keys()].map((i) => `t${i}`));
    expect(await runtime.streams(handle.runId)).toEqual([
      { name: 'tokens', length: 300, closed: false },
    ]);
  });

  it('a retried step is preceded by a restart marker carrying its attempt', async () => {
    const key = id();
    script.failingAttempts = 1;
    const handle = await runtime.start(Narrator, 'narrate', [key, 10]);
    const entries = await collect(runtime.readStream<string>(handle.runId, 'tokens'));
    expect(entries.map((e) => e.offset)).toEqual([...Array(16).keys()]);
    expect(entries.slice(0, 5).map((e) => e.chunk)).toEqual(['t0', 't1', 't2', 't3', 't4']);
    expect(entries[5]).toEqual({
      offset: 5,
      seq: 0,
      restart: { step: 'tell', seq: 0, attempt: 2 },
    });
    expect(entries.slice(6).map((e) => e.chunk)).toEqual([...Array(10).keys()].map((i) => `t${i}`));
  });

  it('restart() inside one attempt records a marker before the output begins again', async () => {
    const handle = await runtime.start(Narrator, 'narrateTwice', [id()]);
    const entries = await collect(runtime.readStream<string>(handle.runId, 'tokens'));
    expect(entries).toEqual([
      { offset: 0, seq: 0, chunk: 't0' },
      { offset: 1, seq: 0, chunk: 't1' },
      { offset: 2, seq: 0, chunk: 't2' },
      { offset: 3, seq: 0, restart: { step: 'tellTwice', seq: 0, attempt: 1 } },
      { offset: 4, seq: 0, chunk: 't0' },
      { offset: 5, seq: 0, chunk: 't1' },
      { offset: 6, seq: 0, chunk: 't2' },
    ]);
  });

  it('workflow code that closes a stream again on a resume finds it closed, and goes on', async () => {
    const handle = await runtime.start(Narrator, 'narrateThenWait', [id(), 4]);
    for (let status = ''; status !== 'waiting'; status = await handle.status()) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await runtime.signal(handle.runId, 'go');
    await expect(handle.result()).resolves.toBe(4);
    const entries = await collect(runtime.readStream<string>(handle.runId, 'tokens'));
    expect(entries.map((e) => e.chunk)).toEqual(['t0', 't1', 't2', 't3']);
    expect(await runtime.streams(handle.runId)).toEqual([
      { name: 'tokens', length: 4, closed: true },
    ]);
  });

  it('a chunk that cannot be stored, or a write from workflow code, fails naming the stream', async () => {
    const bad = runtime.run(Narrator, 'narrateBadly', [id(), 'function-chunk']);
    await expect(bad).rejects.toThrow(SerializationError);
    await expect(bad).rejects.toThrow(/cannot store stream "tokens" chunk\.callback/);
    await expect(runtime.run(Narrator, 'narrateBadly', [id(), 'workflow-write'])).rejects.toThrow(
      /stream "tokens": write\(\) is only available inside a step/,
    );
  });

  it('a stream name that cannot be stored fails the step, naming the stream', async () => {
    const nul = runtime.run(Narrator, 'narrateBadly', [id(), 'bad-name', 'to\u0000kens']);
    await expect(nul).rejects.toThrow(InvalidArgumentError);
    await expect(nul).rejects.toThrow(
      /stream\(\): name must not contain the NUL character \(U\+0000\), found at index 2: "to\\u0000kens"/,
    );
    const long = runtime.run(Narrator, 'narrateBadly', [id(), 'bad-name', 'x'.repeat(201)]);
    await expect(long).rejects.toThrow(
      /stream\(\): name must be 1 to 200 characters long, got 201: "xxx/,
    );
  });

  it('refuses bad input with errors naming what was wrong', async () => {
    await expect(collect(runtime.readStream('no-such-run', 'tokens'))).rejects.toBeInstanceOf(
      RunNotFoundError,
    );
    expect(() => runtime.readStream('r', '')).toThrow(InvalidArgumentError);
    expect(() => runtime.readStream('r', 'a\u0000b')).toThrow(/readStream\(\): name/);
    expect(() => runtime.readStream('r', 'tokens', { from: -1 })).toThrow(/from/);
  });
});

describe('stream writers outside a step', () => {
  it('a write from workflow code or outside a run is refused, naming the stream', async () => {
    const { WorkflowContext } = await import('waymark');
    const ctx = new WorkflowContext();
    expect(() => ctx.stream('tokens')).toThrow(NotInRunError);
  });
});
