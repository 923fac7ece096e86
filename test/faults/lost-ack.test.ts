import { container as rootContainer, injectable } from 'tsyringe';
import { DataSource, Entity, PrimaryColumn } from 'typeorm';
import {
  Idempotent,
  Step,
  Waymark,
  Workflow,
  WorkflowContext,
  dataSourceOptionsFromUrl,
  type WaymarkRuntime,
} from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import type { Completion } from './support/StatementInfo';
import { FaultProxy } from './support/FaultProxy';

/** The application's row of the transactional step. */
@Entity('ack_orders')
class AckOrder {
  @PrimaryColumn({ type: 'varchar', length: 100 })
  id!: string;
}

/** How many times each step body ran, by run. */
const bodies = new Map<string, number>();
const ran = (runId: string, step: string): void => {
  const key = `${runId}:${step}`;
  bodies.set(key, (bodies.get(key) ?? 0) + 1);
};
const timesRan = (runId: string, step: string): number => bodies.get(`${runId}:${step}`) ?? 0;

@injectable()
class AckFlow {
  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'ack', id: (id: string) => id })
  async run(id: string): Promise<string> {
    const planned = await this.plan(id);
    const charged = await this.charge(id);
    const saved = await this.save(id);
    const invoiced = await this.invoice(id);
    const streamed = await this.emit(id);
    const metered = await this.metered(id);
    return [planned, charged, saved, invoiced, streamed, metered].join(', ');
  }

  @Step({ limiter: 'ack-api' })
  async metered(id: string): Promise<string> {
    ran(id, 'metered');
    return 'metered';
  }

  @Step()
  async plan(id: string): Promise<string> {
    ran(id, 'plan');
    return `planned ${id}`;
  }

  @Step({ atMostOnce: true })
  async charge(id: string): Promise<string> {
    ran(id, 'charge');
    return `charged ${id}`;
  }

  @Step({ transactional: true })
  async save(id: string): Promise<string> {
    ran(id, 'save');
    await this.ctx.entityManager.insert(AckOrder, { id });
    return `saved ${id}`;
  }

  @Step()
  @Idempotent({ key: (id: string) => `invoice-${id}`, scope: 'global' })
  async invoice(id: string): Promise<string> {
    ran(id, 'invoice');
    return `invoiced ${id}`;
  }

  @Step()
  async emit(id: string): Promise<string> {
    ran(id, 'emit');
    const out = this.ctx.stream<string>('out');
    for (const word of ['a', 'b', 'c']) out.write(word);
    return 'streamed';
  }
}

/**
 * Which statement's answer is lost: the server committed it, the reply never reached waymark
 * (the connection is cut after the server's completion). Each must be found on the retry as
 * this process's own write, never taken for another's, never done twice.
 */
// Four fields in every row: jest passes a `done` callback to a test taking more than a row holds.
const LOST: Array<[string, RegExp, number, RegExp | undefined]> = [
  // [what, the statement, how many of its committed completions pass first, and, for a
  //  COMMIT, the statement it must follow on its connection]
  ['the run is created', /^INSERT INTO waymark_runs/, 0, undefined],
  ['a step is checkpointed', /^INSERT INTO waymark_steps/, 0, undefined],
  ["an at-most-once step's intent is stored", /^INSERT INTO waymark_steps/, 1, undefined],
  [
    "an at-most-once step's outcome is stored over its intent",
    /^UPDATE waymark_steps SET status/,
    0,
    undefined,
  ],
  ["a transactional step's COMMIT", /^COMMIT/, 0, undefined],
  ['a global idempotency key is claimed', /^INSERT INTO waymark_idempotency_keys/, 0, undefined],
  ['stream chunks are appended', /^INSERT INTO waymark_stream_chunks/, 0, undefined],
  ['the run is finished', /^UPDATE waymark_runs SET status = /, 0, undefined],
  ['a limiter slot is taken', /^COMMIT/, 0, /^INSERT INTO waymark_limiter_slots/],
];

describe.each<Backend>(['postgres', 'mariadb'])('a lost acknowledgement on %s', (backend) => {
  let db: TestDatabase;
  let proxy: FaultProxy;
  let app: DataSource;
  let runtime: WaymarkRuntime;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    const url = new URL(db.url);
    proxy = await FaultProxy.start({
      dialect: backend === 'postgres' ? 'postgres' : 'mysql',
      port: Number(url.port),
    });
    url.port = String(proxy.port);
    app = new DataSource({
      ...dataSourceOptionsFromUrl(url.toString()),
      entities: [AckOrder],
      synchronize: true,
    });
    await app.initialize();
    runtime = await Waymark.create({
      database: app,
      container: rootContainer.createChildContainer(),
      // Long enough that a write found again only once its lease lapses fails the test.
      leaseDuration: '10m',
      logger: {
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: console.error,
      },
    });
    runtime.limiter('ack-api', { concurrency: 1 });
  });

  afterAll(async () => {
    await runtime?.close();
    await app?.destroy();
    await proxy?.close();
    await db?.drop();
  });

  it.each(LOST)(
    'when %s: the run completes, every body ran once, the stream and the rows hold each write once',
    async (what, statement, passing, after) => {
      const id = `${backend}-${what.replace(/\W+/g, '-')}-${Date.now()}`;
      let lost: Completion | undefined;
      let passed = 0;
      const followed = new Set<number>();
      const decide = proxy.onCompletion((completion) => {
        const { sql, command, connectionId } = completion.statement;
        if (lost || completion.error) return undefined;
        if (after?.test(sql.trimStart())) followed.add(connectionId);
        // A prepare (mysql2's COM_STMT_PREPARE) commits nothing: the execution after it does.
        if (completion.status !== 'idle' || command === 'prepare') return undefined;
        if (!statement.test(sql.trimStart())) return undefined;
        if (after && !followed.delete(connectionId)) return undefined;
        if (passed++ < passing) return undefined;
        lost = completion;
        return { kind: 'lost-ack' };
      });
      try {
        await expect(runtime.run(AckFlow, 'run', [id])).resolves.toBe(
          `planned ${id}, charged ${id}, saved ${id}, invoiced ${id}, streamed, metered`,
        );
      } finally {
        decide.dispose();
      }
      expect(lost).toBeDefined();
      for (const step of ['plan', 'charge', 'save', 'invoice', 'emit', 'metered']) {
        expect([step, timesRan(id, step)]).toEqual([step, 1]);
      }
      expect(await app.getRepository(AckOrder).findBy({ id })).toHaveLength(1);
      // Each chunk once, at offsets 0, 1, 2: no restart marker, as the step ran once.
      const entries: unknown[] = [];
      for await (const { offset, chunk, restart } of runtime.readStream<string>(id, 'out')) {
        entries.push({ offset, chunk, restart });
      }
      expect(entries).toEqual(
        ['a', 'b', 'c'].map((chunk, offset) => ({ offset, chunk, restart: undefined })),
      );
      expect((await runtime.history(id)).map((s) => s.status)).toEqual(Array(6).fill('completed'));
    },
  );
});

describe.each<Backend>(['postgres', 'mariadb'])(
  "a worker's claim whose answer is lost, on %s",
  (backend) => {
    let db: TestDatabase;
    let proxy: FaultProxy;
    let app: DataSource;

    beforeAll(async () => {
      db = await createTestDatabase(backend);
      const url = new URL(db.url);
      proxy = await FaultProxy.start({
        dialect: backend === 'postgres' ? 'postgres' : 'mysql',
        port: Number(url.port),
      });
      url.port = String(proxy.port);
      app = new DataSource({
        ...dataSourceOptionsFromUrl(url.toString()),
        entities: [AckOrder],
        synchronize: true,
      });
      await app.initialize();
    });

    afterAll(async () => {
      await app?.destroy();
      await proxy?.close();
      await db?.drop();
    });

    it('the claimed run, held under this very worker, is taken again once its lease lapses, and runs once', async () => {
      const runtime = await Waymark.create({
        database: app,
        container: rootContainer.createChildContainer(),
        leaseDuration: '1s',
        logger: {
          debug: () => undefined,
          info: () => undefined,
          warn: () => undefined,
          error: console.error,
        },
      });
      runtime.limiter('ack-api', { concurrency: 1 });
      try {
        const id = `${backend}-worker-claim-${Date.now()}`;
        const handle = await runtime.start(AckFlow, 'run', [id], { queue: true });
        let lost = false;
        // The claim: one UPDATE … RETURNING (PostgreSQL), or the UPDATE of a claiming transaction
        // whose COMMIT then loses its answer (MariaDB).
        const claim =
          backend === 'postgres' ? /^UPDATE waymark_runs SET status = 'running'/ : /^COMMIT/;
        const decide = proxy.onCompletion((completion) => {
          if (lost || completion.error || completion.status !== 'idle') return undefined;
          if (completion.statement.command === 'prepare') return undefined;
          if (!claim.test(completion.statement.sql.trimStart())) return undefined;
          lost = true;
          return { kind: 'lost-ack' };
        });
        runtime.startWorker({ concurrency: 1, pollInterval: '50ms' });
        try {
          await expect(handle.result()).resolves.toBe(
            `planned ${id}, charged ${id}, saved ${id}, invoiced ${id}, streamed, metered`,
          );
        } finally {
          decide.dispose();
        }
        expect(lost).toBe(true);
        for (const step of ['plan', 'charge', 'save', 'invoice', 'emit', 'metered']) {
          expect([step, timesRan(id, step)]).toEqual([step, 1]);
        }
      } finally {
        await runtime.close();
      }
    });
  },
);
