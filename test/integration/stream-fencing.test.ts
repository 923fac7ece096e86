import { container as rootContainer, injectable } from 'tsyringe';
import { DataSource } from 'typeorm';
import {
  Step,
  Waymark,
  Workflow,
  WorkflowContext,
  dataSourceOptionsFromUrl,
  isLeaseLostError,
  type Logger,
  type StreamEntry,
  type WaymarkRuntime,
} from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';

const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];
const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** What one runtime's writer does: `hold` parks its step after the first chunk is stored. */
class FenceScript {
  heldAt?: () => void;
  hold?: Promise<void>;
  /** Told how the held writer's late flush ended: 'stored', or what it threw. */
  lateFlush?: (outcome: unknown) => void;
  constructor(readonly who: string) {}
}

@injectable()
class FencedWriter {
  constructor(
    private readonly ctx: WorkflowContext,
    private readonly script: FenceScript,
  ) {}

  @Workflow({ name: 'fenced-writer', id: (key: string) => `fenced-${key}` })
  async write(_key: string): Promise<string> {
    return this.speak();
  }

  @Step()
  async speak(): Promise<string> {
    const { who, hold, heldAt } = this.script;
    const out = this.ctx.stream<string>('tokens');
    out.write(`${who}: first`);
    await out.flush();
    if (hold) {
      heldAt?.();
      await hold;
      out.write(`${who}: late`);
      try {
        await out.flush();
        this.script.lateFlush?.('stored');
      } catch (error) {
        this.script.lateFlush?.(error);
        throw error;
      }
    }
    return who;
  }
}

/** Two steps at once, writing to one stream in turn: every chunk is a batch of its own. */
@injectable()
class Interleaved {
  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'interleaved-writers', id: (key: string) => `interleaved-${key}` })
  async write(_key: string, count: number): Promise<number> {
    const [a, b] = await Promise.all([this.chant('a', count), this.chant('b', count)]);
    return a + b;
  }

  @Step()
  async chant(voice: string, count: number): Promise<number> {
    const out = this.ctx.stream<string>('chorus');
    for (let i = 0; i < count; i++) {
      out.write(`${voice}${i}`);
      await Promise.resolve(); // the other step writes next
    }
    return count;
  }
}

async function collect<T>(entries: AsyncIterable<StreamEntry<T>>): Promise<Array<StreamEntry<T>>> {
  const seen: Array<StreamEntry<T>> = [];
  for await (const entry of entries) seen.push(entry);
  return seen;
}

describe.each(BACKENDS)('stream writes fenced by the claim on %s', (backend) => {
  let db: TestDatabase;
  let admin: DataSource;
  const opened: WaymarkRuntime[] = [];
  const open = async (script: FenceScript): Promise<WaymarkRuntime> => {
    const scope = rootContainer.createChildContainer();
    scope.registerInstance(FenceScript, script);
    // A long lease: only the test takes the run over, never a late renewal race.
    const runtime = await Waymark.create({
      database: db.url,
      container: scope,
      workerId: script.who,
      leaseDuration: '10m',
      logger: quiet,
    });
    opened.push(runtime);
    return runtime;
  };

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    admin = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
  });
  afterAll(async () => {
    for (const runtime of opened) await runtime.close({ grace: 0 });
    await admin?.destroy();
    await db?.drop();
  });

  it('a process whose claim was taken over cannot append: its flush fails with LeaseLostError and stores nothing', async () => {
    let release!: () => void;
    let held!: () => void;
    const heldNow = new Promise<void>((resolve) => (held = resolve));
    const old = new FenceScript('old');
    old.hold = new Promise<void>((resolve) => (release = resolve));
    old.heldAt = held;
    const lateFlush = new Promise<unknown>((resolve) => (old.lateFlush = resolve));
    const first = await open(old);
    const handle = await first.start(FencedWriter, 'write', ['takeover']);
    await heldNow;

    // The old holder stalls past its lease; another runtime claims the run (a new epoch).
    const placeholder = backend === 'postgres' ? '$1' : '?';
    await admin.query(`UPDATE waymark_runs SET lease_expires_at = 1 WHERE id = ${placeholder}`, [
      handle.runId,
    ]);
    const taker = await open(new FenceScript('new'));
    taker.startWorker({ pollInterval: '20ms' });
    await expect(taker.handle(handle.runId).result()).resolves.toBe('new');

    // The old holder wakes up and writes: refused, as its step checkpoint would be.
    release();
    await expect(handle.result()).resolves.toBe('new');
    const error = await lateFlush;
    expect(isLeaseLostError(error)).toBe(true);
    expect((error as Error).message).toBe(
      `run "${handle.runId}" was taken over by another process (epoch 1 is stale)`,
    );
    const entries = await collect(taker.readStream<string>(handle.runId, 'tokens'));
    expect(entries.map((e) => (e.restart ? `restart ${e.restart.attempt}` : e.chunk))).toEqual([
      'old: first',
      'restart 1',
      'new: first',
    ]);
    expect(entries.map((e) => e.offset)).toEqual([0, 1, 2]);
    expect(await taker.streams(handle.runId)).toEqual([
      { name: 'tokens', length: 3, closed: false },
    ]);
  });

  it('parallel steps writing in turn store every chunk, however many batches one flush holds', async () => {
    const runtime = await open(new FenceScript('chorus'));
    const handle = await runtime.start(Interleaved, 'write', ['many', 400]);
    await expect(handle.result()).resolves.toBe(800);
    const entries = await collect(runtime.readStream<string>(handle.runId, 'chorus'));
    expect(entries.map((e) => e.offset)).toEqual([...Array(800).keys()]);
    const voice = (v: string): string[] =>
      entries.map((e) => e.chunk ?? '').filter((c) => c.startsWith(v));
    expect(voice('a')).toEqual([...Array(400).keys()].map((i) => `a${i}`));
    expect(voice('b')).toEqual([...Array(400).keys()].map((i) => `b${i}`));
  });
});
