import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container as rootContainer } from 'tsyringe';
import { DataSource } from 'typeorm';
import {
  InvalidArgumentError,
  RunFinishedError,
  Waymark,
  Workflow,
  WorkflowContext,
  dataSourceOptionsFromUrl,
  type SignalOptions,
  type WaymarkRuntime,
} from 'waymark';
import { injectable } from 'tsyringe';
import { WorkerProcess } from '../crash/support/WorkerProcess';
import { Migrator, waymarkMigrations } from 'waymark/migrations';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';

const SENDER = 'test/integration/fixtures/signalSender.ts';

/** Takes `count` messages, in the order they were stored. */
@injectable()
class Inbox {
  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'signal-keys-inbox' })
  async collect(count: number): Promise<string[]> {
    const taken: string[] = [];
    for (let i = 0; i < count; i++) taken.push(await this.ctx.waitForSignal<string>('message'));
    return taken;
  }
}

describe.each(ALL_BACKENDS)('signals with idempotency keys on %s', (backend) => {
  let db: TestDatabase;
  let database: string | DataSource;
  let runtime: WaymarkRuntime;
  let n = 0;
  const id = (): string => `keys-${backend}-${++n}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    // In-memory SQLite: one database that outlives the runtimes opened on it.
    database =
      backend === 'sqlite'
        ? await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize()
        : db.url;
    runtime = await Waymark.create({ database, container: rootContainer.createChildContainer() });
    // Resumes the runs the signals wake.
    runtime.startWorker({ pollInterval: '50ms' });
  });
  afterAll(async () => {
    await runtime.close({ grace: 0 });
    if (database instanceof DataSource) await database.destroy();
    await db.drop();
  });

  const waiting = async (runId: string): Promise<void> => {
    for (let i = 0; i < 500 && (await runtime.handle(runId).status()) !== 'waiting'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  const taken = async (runId: string): Promise<void> => {
    for (let i = 0; i < 500 && (await runtime.handle(runId).pendingSignals()).length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('a second send of a key stores nothing and says so, also after the run took the first', async () => {
    const runId = id();
    const handle = await runtime.start(Inbox, 'collect', [2], { runId });
    await waiting(runId);
    const key = (k: string): SignalOptions => ({ idempotencyKey: k });
    expect(await runtime.signal(runId, 'message', 'one', key('m1'))).toEqual({ duplicate: false });
    // Taken by the first wait: sent again, still a duplicate.
    await taken(runId);
    expect(await runtime.signal(runId, 'message', 'one again', key('m1'))).toEqual({
      duplicate: true,
    });
    expect(await runtime.handle(runId).pendingSignals('message')).toEqual([]);
    expect(await runtime.signal(runId, 'message', 'two', key('m2'))).toEqual({ duplicate: false });
    await expect(handle.result()).resolves.toEqual(['one', 'two']);
    // The run ended: the client's retry of a message it delivered is told so, not refused.
    expect(await runtime.signal(runId, 'message', 'two', key('m2'))).toEqual({ duplicate: true });
    await expect(runtime.signal(runId, 'message', 'three', key('m3'))).rejects.toBeInstanceOf(
      RunFinishedError,
    );
  });

  it('a key is scoped to its run and signal name; signals without a key all count', async () => {
    const [a, b] = [id(), id()];
    await runtime.start(Inbox, 'collect', [9], { runId: a });
    await runtime.start(Inbox, 'collect', [9], { runId: b });
    const send = (runId: string, name: string, options?: SignalOptions) =>
      runtime.signal(runId, name, name, options);
    const receipts = [
      await send(a, 'message', { idempotencyKey: 'k' }),
      await send(a, 'other', { idempotencyKey: 'k' }),
      await send(b, 'message', { idempotencyKey: 'k' }),
      await send(a, 'other'),
      await send(a, 'other'),
      await send(a, 'other', {}),
    ];
    expect(receipts.map((r) => r.duplicate)).toEqual([false, false, false, false, false, false]);
    expect(await runtime.handle(a).pendingSignals('other')).toHaveLength(4);
  });

  it('concurrent sends of one key store exactly one signal', async () => {
    for (let round = 0; round < 3; round++) {
      const runId = id();
      const handle = await runtime.start(Inbox, 'collect', [2], { runId });
      const sends = Array.from({ length: 8 }, (_, i) =>
        runtime.signal(runId, 'message', `copy ${i}`, { idempotencyKey: 'same' }),
      );
      expect((await Promise.all(sends)).filter((r) => !r.duplicate)).toHaveLength(1);
      await runtime.signal(runId, 'message', 'last', { idempotencyKey: 'next' });
      const [first, second] = await handle.result();
      expect(first).toMatch(/^copy \d$/);
      expect(second).toBe('last');
    }
  });

  // Two processes: two connection pools, and on a SQLite file two writers of one file
  // (in-memory SQLite lives in one process only).
  const acrossProcesses = (name: string, test: () => Promise<void>): void => {
    if (backend !== 'sqlite') it(name, test, 90_000);
  };
  acrossProcesses(
    'concurrent sends of one key from three processes store exactly one signal',
    async () => {
      const runId = id();
      const handle = await runtime.start(Inbox, 'collect', [2], { runId });
      const dir = mkdtempSync(join(tmpdir(), 'waymark-signal-race-'));
      const barrier = join(dir, 'go');
      try {
        const senders = [1, 2, 3].map(() =>
          WorkerProcess.start(SENDER, [db.url, runId, 'raced', '6', barrier], {
            timeoutMs: 60_000,
          }),
        );
        await Promise.all(senders.map((s) => s.waitForLine((l) => l.startsWith('ready '))));
        writeFileSync(barrier, '');
        await Promise.all(senders.map((s) => s.succeeded()));
        const stored = senders.map((s) => {
          const line = s.lines.find((l) => l.startsWith('sent ')) ?? 'sent {"stored":-1}';
          return (JSON.parse(line.slice('sent '.length)) as { stored: number }).stored;
        });
        expect(stored.reduce((a, b) => a + b, 0)).toBe(1);
        await runtime.signal(runId, 'message', 'last');
        const [first, second] = await handle.result();
        expect(first).toMatch(/^\d+:\d$/);
        expect(second).toBe('last');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('the unique index refuses a second stored row with one run, name and key', async () => {
    const runId = id();
    await runtime.start(Inbox, 'collect', [9], { runId });
    await runtime.signal(runId, 'message', 'x', { idempotencyKey: 'indexed' });
    const raw =
      database instanceof DataSource
        ? database
        : await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
    try {
      const insert =
        'INSERT INTO waymark_signals (run_id, name, payload, consumed_seq, created_at, idempotency_key) ' +
        (backend === 'postgres'
          ? 'VALUES ($1, $2, $3, NULL, $4, $5)'
          : 'VALUES (?, ?, ?, NULL, ?, ?)');
      await expect(raw.query(insert, [runId, 'message', '"y"', 0, 'indexed'])).rejects.toThrow(
        /unique|duplicate/i,
      );
    } finally {
      if (raw !== database) await raw.destroy();
    }
  });

  it('an upgrade to M0012 keeps the signals stored before it, and keys work after it', async () => {
    const runId = id();
    await runtime.start(Inbox, 'collect', [9], { runId });
    await waiting(runId);
    // A name the run never waits for: the signals stay stored.
    await runtime.signal(runId, 'note', 'stored before');
    await runtime.signal(runId, 'note', 'stored before');
    const raw =
      database instanceof DataSource
        ? database
        : await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
    try {
      // Back to the schema before M0012, with its signals, then migrated as an upgrade would.
      const M0012 = waymarkMigrations.at(-1)!;
      const runner = raw.createQueryRunner();
      try {
        await new M0012().down(runner);
      } finally {
        await runner.release();
      }
      await raw.query(`DELETE FROM waymark_migrations WHERE name = '${new M0012().name}'`);
      expect(await new Migrator(raw).pending()).toEqual(['M0012AddSignalKeys']);
      expect(await new Migrator(raw).migrate()).toEqual(['M0012AddSignalKeys']);
    } finally {
      if (raw !== database) await raw.destroy();
    }
    expect(await runtime.handle(runId).pendingSignals('note')).toHaveLength(2);
    const key = { idempotencyKey: 'after-upgrade' };
    const receipts = [
      await runtime.signal(runId, 'note', 'keyed', key),
      await runtime.signal(runId, 'note', 'keyed', key),
    ];
    expect(receipts).toEqual([{ duplicate: false }, { duplicate: true }]);
  });

  it('a malformed key or options object is a clear error, and nothing is stored', async () => {
    const runId = id();
    await runtime.start(Inbox, 'collect', [9], { runId });
    const bad = [
      [{ idempotencyKey: '' }, 'signal(): idempotencyKey must be 1 to 200 characters long, got 0'],
      [{ idempotencyKey: 42 }, 'signal(): idempotencyKey must be a string, got number'],
      [{ idempotencyKey: 'k'.repeat(201) }, 'signal(): idempotencyKey must be 1 to 200 characters'],
      [{ idempotencyKey: 'a\u0000b' }, 'must not contain the NUL character'],
      [
        { key: 'm1' },
        'signal(): options has no option "key" (the idempotency key is { idempotencyKey })',
      ],
      ['m1', 'signal(): options must be an object'],
    ] as const;
    for (const [options, message] of bad) {
      const error = await runtime
        .signal(runId, 'message', 'x', options as unknown as SignalOptions)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toContain(message);
    }
    expect(await runtime.handle(runId).pendingSignals()).toEqual([]);
  });
});
