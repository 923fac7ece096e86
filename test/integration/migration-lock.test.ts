import { DataSource, type MigrationInterface } from 'typeorm';
import { MigrationLockTimeoutError, Waymark, dataSourceOptionsFromUrl } from 'waymark';
import { Migrator, waymarkMigrations } from 'waymark/migrations';
import { mysqlMigrationLockName } from '../../src/store/migrations/MigrationLock';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';

/**
 * A migration that holds its Migrator (and so the database's migration lock) until
 * released: `held` resolves once it is inside the lock.
 */
function blockingMigration() {
  let entered!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  class M9999HoldTheLock implements MigrationInterface {
    name = 'M9999HoldTheLock';
    async up(): Promise<void> {
      entered();
      await released;
    }
    async down(): Promise<void> {}
  }
  return { Migration: M9999HoldTheLock, held, release };
}

async function open(url: string): Promise<DataSource> {
  return new DataSource(dataSourceOptionsFromUrl(url)).initialize();
}

/** Holds `url`'s migration lock until the returned `release()` (after applying waymark's own). */
async function holdMigrationLock(url: string) {
  const dataSource = await open(url);
  const blocking = blockingMigration();
  const migrating = new Migrator(dataSource, [...waymarkMigrations, blocking.Migration]).migrate();
  await blocking.held;
  return {
    release: async () => {
      blocking.release();
      await migrating;
      await dataSource.destroy();
    },
  };
}

describe.each(['mariadb', 'postgres', 'sqlite-file'] as Backend[])(
  'the migration lock on %s',
  (backend) => {
    let db: TestDatabase;
    beforeEach(async () => {
      db = await createTestDatabase(backend);
    });
    afterEach(async () => {
      await db.drop();
    });

    it('a schema already current starts without the lock, while another process holds it', async () => {
      await (await Waymark.create({ database: db.url })).close();
      const holder = await holdMigrationLock(db.url);
      try {
        const runtime = await Waymark.create({ database: db.url });
        await runtime.close();
      } finally {
        await holder.release();
      }
    }, 20_000);

    it('a lock held past the timeout fails with a clear error, and nothing is applied', async () => {
      const holder = await holdMigrationLock(db.url);
      const waiting = await open(db.url);
      try {
        class M9998Later implements MigrationInterface {
          name = 'M9998Later';
          async up(): Promise<void> {
            throw new Error('applied without the lock');
          }
          async down(): Promise<void> {}
        }
        const migrator = new Migrator(waiting, [...waymarkMigrations, M9998Later], {
          lockTimeoutMs: 200,
        });
        const before = await migrator.pending();
        expect(before).toContain('M9998Later');
        const error = await migrator.migrate().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(MigrationLockTimeoutError);
        expect((error as Error).message).toMatch(
          /^waymark could not migrate database ".+": another process held the migration lock \(.+\) for more than 200 ms; nothing was applied/,
        );
        await expect(migrator.pending()).resolves.toEqual(before);
      } finally {
        await waiting.destroy();
        await holder.release();
      }
    }, 20_000);
  },
);

describe.each(['mariadb', 'postgres'] as Backend[])(
  'migration locks on one %s server',
  (backend) => {
    let mine: TestDatabase;
    let other: TestDatabase;
    beforeEach(async () => {
      [mine, other] = await Promise.all([createTestDatabase(backend), createTestDatabase(backend)]);
    });
    afterEach(async () => {
      await Promise.all([mine.drop(), other.drop()]);
    });

    it('a lock held while another database migrates does not delay create()', async () => {
      const holder = await holdMigrationLock(other.url);
      try {
        const runtime = await Waymark.create({ database: mine.url });
        await expect(new Migrator(runtime.dataSource).pending()).resolves.toEqual([]);
        await runtime.close();
      } finally {
        await holder.release();
      }
    }, 20_000);
  },
);

describe('the MySQL lock name', () => {
  it('is named after the database, hashed when that would pass 64 characters', () => {
    expect(mysqlMigrationLockName('orders')).toBe('waymark_migrations:orders');
    const long = mysqlMigrationLockName('a'.repeat(64));
    expect(long).toHaveLength(64);
    expect(long).not.toBe(mysqlMigrationLockName(`${'a'.repeat(63)}b`));
  });

  it('a database with a 64-character name migrates on MariaDB', async () => {
    const db = await createTestDatabase('mariadb');
    const name = `wm_long_${'x'.repeat(56)}`;
    const url = db.url.replace(/\/[^/]+$/, `/${name}`);
    const admin = await open(db.url);
    try {
      await admin.query(`CREATE DATABASE ${name}`);
      const runtime = await Waymark.create({ database: url });
      await expect(new Migrator(runtime.dataSource).pending()).resolves.toEqual([]);
      await runtime.close();
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.destroy();
      await db.drop();
    }
  });
});
