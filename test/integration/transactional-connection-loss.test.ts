import { container as rootContainer, injectable } from 'tsyringe';
import { Column, DataSource, Entity, PrimaryColumn, type EntityManager } from 'typeorm';
import {
  Retry,
  Step,
  Waymark,
  Workflow,
  WorkflowContext,
  dataSourceOptionsFromUrl,
  type WaymarkRuntime,
} from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { RecordingLogger } from '../support/RecordingLogger';

/** The application's own row, written by the transactional step. */
@Entity('lost_tx_orders')
class LostTxOrder {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'integer' })
  attempt!: number;
}

/**
 * Where the body's transaction is killed: before its last query (whose error the body lets
 * through, or catches and replaces with its own), or before its checkpoint.
 */
type KillPoint = 'mid-body' | 'mid-body, caught' | 'before-checkpoint';

/** Lets a test kill the server session of the body's first transaction while it is open. */
class Saboteur {
  static point: KillPoint | undefined;
  static kill: ((sessionId: number) => Promise<void>) | undefined;
  static bodies = 0;
}

async function sessionId(manager: EntityManager, backend: Backend): Promise<number> {
  const sql =
    backend === 'postgres' ? 'SELECT pg_backend_pid() AS id' : 'SELECT CONNECTION_ID() AS id';
  const [row] = await manager.query<Array<{ id: unknown }>>(sql);
  return Number(row.id);
}

@injectable()
class LostTxFlow {
  static backend: Backend;

  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'lost-tx', id: (orderId: string) => `lost-tx-${orderId}` })
  async place(orderId: string): Promise<string> {
    const saved = await this.save(orderId);
    return `${saved} then shipped`;
  }

  @Step({ transactional: true })
  @Retry({ maxAttempts: 3, backoff: { fixed: '10ms' } })
  async save(orderId: string): Promise<string> {
    Saboteur.bodies++;
    const manager = this.ctx.entityManager;
    await manager.insert(LostTxOrder, { id: orderId, attempt: this.ctx.attempt });
    const kill = Saboteur.kill;
    if (kill && Saboteur.point) {
      Saboteur.kill = undefined;
      await kill(await sessionId(manager, LostTxFlow.backend));
      if (Saboteur.point === 'mid-body') await manager.query('SELECT 1');
      if (Saboteur.point === 'mid-body, caught') {
        await manager.query('SELECT 1').catch(() => {
          throw new Error(`order ${orderId} could not be saved`);
        });
      }
    }
    return `saved ${orderId} in attempt ${this.ctx.attempt}`;
  }
}

describe.each<Backend>(['mariadb', 'postgres'])(
  'a transactional step whose connection dies, on %s',
  (backend) => {
    let db: TestDatabase;
    let app: DataSource;
    let admin: DataSource;
    let runtime: WaymarkRuntime;

    beforeAll(async () => {
      LostTxFlow.backend = backend;
      db = await createTestDatabase(backend);
      app = new DataSource({
        ...dataSourceOptionsFromUrl(db.url),
        entities: [LostTxOrder],
        synchronize: true,
      });
      await app.initialize();
      admin = new DataSource(dataSourceOptionsFromUrl(db.url));
      await admin.initialize();
      runtime = await Waymark.create({
        database: app,
        container: rootContainer.createChildContainer(),
      });
    });

    afterAll(async () => {
      await runtime?.close();
      await admin?.destroy();
      await app?.destroy();
      await db?.drop();
    });

    const killSession = async (id: number): Promise<void> => {
      await admin.query(
        backend === 'postgres' ? `SELECT pg_terminate_backend(${id})` : `KILL ${id}`,
      );
    };

    const rowsFor = (id: string) => app.getRepository(LostTxOrder).findBy({ id });

    it.each<KillPoint>(['mid-body', 'mid-body, caught', 'before-checkpoint'])(
      'killed %s: the transaction rolls back, the step runs again once, the run completes with one row',
      async (point) => {
        const orderId = `${backend}-${point}-${Date.now()}`;
        Saboteur.point = point;
        Saboteur.kill = killSession;
        Saboteur.bodies = 0;
        const result = await runtime.run(LostTxFlow, 'place', [orderId]);
        // The lost connection is not one of the step's attempts: the rerun is attempt 1 again.
        expect(result).toBe(`saved ${orderId} in attempt 1 then shipped`);
        expect(Saboteur.bodies).toBe(2);
        expect(await rowsFor(orderId)).toEqual([{ id: orderId, attempt: 1 }]);
        const history = await runtime.history(`lost-tx-${orderId}`);
        expect(history.map((s) => [s.name, s.status])).toEqual([['save', 'completed']]);
      },
    );
  },
);

/**
 * A database that refuses the transactional step's checkpoint (as a full disk would), but
 * would store its failure: what was refused must not become the step's outcome.
 */
const REFUSE_CHECKPOINT: Record<Backend, string[]> = {
  sqlite: [],
  'sqlite-file': [
    "CREATE TRIGGER refuse_save BEFORE INSERT ON waymark_steps WHEN NEW.name = 'save' AND NEW.status = 'completed' " +
      "BEGIN SELECT RAISE(ABORT, 'no space left for the checkpoint'); END",
  ],
  mariadb: [
    'CREATE TRIGGER refuse_save BEFORE INSERT ON waymark_steps FOR EACH ROW ' +
      "IF NEW.name = 'save' AND NEW.status = 'completed' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no space left for the checkpoint'; END IF",
  ],
  postgres: [
    'CREATE FUNCTION refuse_save() RETURNS trigger AS $$ BEGIN ' +
      "IF NEW.name = 'save' AND NEW.status = 'completed' THEN RAISE EXCEPTION 'no space left for the checkpoint'; END IF; " +
      'RETURN NEW; END $$ LANGUAGE plpgsql',
    'CREATE TRIGGER refuse_save BEFORE INSERT ON waymark_steps FOR EACH ROW EXECUTE FUNCTION refuse_save()',
  ],
};

const ALLOW_CHECKPOINT: Record<Backend, string[]> = {
  sqlite: [],
  'sqlite-file': ['DROP TRIGGER refuse_save'],
  mariadb: ['DROP TRIGGER refuse_save'],
  postgres: ['DROP TRIGGER refuse_save ON waymark_steps', 'DROP FUNCTION refuse_save()'],
};

describe.each<Backend>(['sqlite-file', 'mariadb', 'postgres'])(
  'a transactional step whose checkpoint the database refuses, on %s',
  (backend) => {
    let db: TestDatabase;
    let app: DataSource;

    beforeAll(async () => {
      LostTxFlow.backend = backend;
      db = await createTestDatabase(backend);
      app = new DataSource({
        ...dataSourceOptionsFromUrl(db.url),
        entities: [LostTxOrder],
        synchronize: true,
      });
      await app.initialize();
    });

    afterAll(async () => {
      await app?.destroy();
      await db?.drop();
    });

    it('stops the run resumable instead of failing it; once the database takes writes, the run completes with one row', async () => {
      const scope = rootContainer.createChildContainer();
      const first = await Waymark.create({ database: app, container: scope });
      const orderId = `${backend}-refused-${Date.now()}`;
      Saboteur.kill = undefined;
      Saboteur.bodies = 0;
      for (const sql of REFUSE_CHECKPOINT[backend]) await app.query(sql);
      try {
        await expect(first.run(LostTxFlow, 'place', [orderId])).rejects.toMatchObject({
          name: 'StoreUnavailableError',
          message: expect.stringMatching(/no space left for the checkpoint/),
        });
        // Nothing was recorded as the run's or the step's outcome; the order rolled back.
        expect(await first.handle(`lost-tx-${orderId}`).status()).toBe('running');
        expect(await first.history(`lost-tx-${orderId}`)).toEqual([]);
        expect(await app.getRepository(LostTxOrder).findBy({ id: orderId })).toEqual([]);
      } finally {
        for (const sql of ALLOW_CHECKPOINT[backend]) await app.query(sql);
        await first.close();
      }
      // The first stopped with the run resumable: the second resumes it by calling it, so it
      // says nothing about it.
      const log = new RecordingLogger([]);
      const second = await Waymark.create({ database: app, container: scope, logger: log });
      try {
        await expect(second.run(LostTxFlow, 'place', [orderId])).resolves.toBe(
          `saved ${orderId} in attempt 1 then shipped`,
        );
        expect(await app.getRepository(LostTxOrder).findBy({ id: orderId })).toHaveLength(1);
      } finally {
        await second.close();
      }
      expect(log.abandoned()).toEqual([]);
    });
  },
);
