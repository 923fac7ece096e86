import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { DataSource, type QueryRunner } from 'typeorm';
import {
  ConfigurationError,
  StoreUnavailableError,
  Waymark,
  dataSourceOptionsFromUrl,
  type Duration,
  type WaymarkRuntime,
} from 'waymark';
import { Migrator } from 'waymark/migrations';
import { mysqlMigrationLockName } from '../../src/store/migrations/MigrationLock';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { TcpProxy } from '../support/TcpProxy';

/** waymark's PostgreSQL migration lock (`PG_LOCK_KEY` in src/store/migrations/MigrationLock.ts). */
const PG_MIGRATION_LOCK = 73_615_042;
/** How long the database refuses connections in the outages that end. */
const OUTAGE_MS = 3_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(['mariadb', 'postgres'] as const)(
  'Waymark.create during an outage on %s',
  (backend) => {
    let db: TestDatabase;
    let proxy: TcpProxy;
    let scope: DependencyContainer;
    /** The test database's URL through the proxy. */
    let url: string;
    const open = (storeRetryTimeout: Duration, database = url): Promise<WaymarkRuntime> =>
      Waymark.create({ database, container: scope, storeRetryTimeout });

    beforeEach(async () => {
      db = await createTestDatabase(backend);
      const server = new URL(db.url);
      proxy = await TcpProxy.start(Number(server.port));
      url = db.url.replace(`@${server.host}/`, `@127.0.0.1:${proxy.port}/`);
      scope = rootContainer.createChildContainer();
    });
    afterEach(async () => {
      await proxy.kill();
      await db.drop();
    });

    /** Refuses connections now; `over` resolves once it accepts them again, `OUTAGE_MS` later. */
    const outage = async (): Promise<{ over: Promise<void> }> => {
      await proxy.refuse();
      return { over: sleep(OUTAGE_MS).then(() => proxy.accept()) };
    };

    it('started while the database refuses connections, it waits the outage out and opens once it is back', async () => {
      const began = Date.now();
      const { over } = await outage();
      const runtime = await open('30s');
      try {
        await over;
        expect(Date.now() - began).toBeGreaterThanOrEqual(OUTAGE_MS - 500);
        expect(proxy.accepted).toBeGreaterThan(0);
        await expect(new Migrator(runtime.dataSource).pending()).resolves.toEqual([]);
        await expect(runtime.list()).resolves.toMatchObject({ runs: [] });
      } finally {
        await runtime.close();
      }
    });

    it('an outage that begins while it applies the migrations is waited out too', async () => {
      const lock = await holdMigrationLock(db);
      let runtime: WaymarkRuntime | undefined;
      try {
        const opening = open('30s');
        opening.catch(() => undefined);
        await lock.waitedFor();
        // The connection waiting for the lock is reset; the next ones are refused for a while.
        const { over } = await outage();
        await over;
        await lock.release();
        runtime = await opening;
        await expect(new Migrator(runtime.dataSource).pending()).resolves.toEqual([]);
      } finally {
        await lock.release();
        await runtime?.close();
      }
    });

    it('an outage longer than storeRetryTimeout rejects with a StoreUnavailableError naming what it tried and for how long', async () => {
      await proxy.refuse();
      const error = await open('1s').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      const scheme = backend === 'mariadb' ? 'mysql' : 'postgres';
      expect((error as Error).message).toMatch(
        new RegExp(
          `^waymark could not connect to ${scheme}://\\w+@127\\.0\\.0\\.1:${proxy.port}/wm_\\w+ ` +
            'in [\\d.]+ s of retries \\(storeRetryTimeout 1 s\\): .*ECONNREFUSED',
        ),
      );
      expect((error as StoreUnavailableError).retriedMs).toBeGreaterThanOrEqual(300);
    });

    it('an unknown database, a wrong password or a malformed URL fails at once, without a retry', async () => {
      const unknown = url.replace(/\/wm_\w+$/, '/wm_no_such_database');
      const stranger =
        backend === 'mariadb'
          ? url.replace('mysql://root@', 'mysql://root:wrong-password@')
          : url.replace('postgres://postgres@', 'postgres://no_such_role@');
      for (const database of [unknown, stranger]) {
        const before = proxy.accepted;
        await expect(open('30s', database)).rejects.toThrow(StoreUnavailableError);
        expect(proxy.accepted - before).toBe(1);
      }
      const before = proxy.accepted;
      await expect(open('30s', url.replace(`:${proxy.port}/`, ':port/'))).rejects.toThrow(
        ConfigurationError,
      );
      expect(proxy.accepted).toBe(before);
    });
  },
);

/**
 * Holds `db`'s migration lock from a session that bypasses the proxy, as another process
 * applying migrations would: `waitedFor()` resolves once another session waits for it.
 */
async function holdMigrationLock(db: TestDatabase) {
  const admin = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
  const runner: QueryRunner = admin.createQueryRunner();
  await runner.connect();
  const name = new URL(db.url).pathname.slice(1);
  const mysql = db.backend === 'mariadb';
  if (mysql) await runner.query('SELECT GET_LOCK(?, 60)', [mysqlMigrationLockName(name)]);
  else await runner.query(`SELECT pg_advisory_lock(${PG_MIGRATION_LOCK})`);
  let released = false;
  const waiting = async (): Promise<number> => {
    const [row] = mysql
      ? await admin.query<Array<{ n: unknown }>>(
          "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE 'SELECT GET_LOCK%'",
          [name],
        )
      : await admin.query<Array<{ n: unknown }>>(
          "SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
        );
    return Number(row.n);
  };
  return {
    async waitedFor(): Promise<void> {
      for (let i = 0; i < 500 && (await waiting()) === 0; i++) await sleep(20);
      if ((await waiting()) === 0) throw new Error('nothing waited for the migration lock');
    },
    async release(): Promise<void> {
      if (released) return;
      released = true;
      await runner.query(
        mysql ? 'SELECT RELEASE_LOCK(?)' : `SELECT pg_advisory_unlock(${PG_MIGRATION_LOCK})`,
        mysql ? [mysqlMigrationLockName(name)] : [],
      );
      await runner.release();
      await admin.destroy();
    },
  };
}
