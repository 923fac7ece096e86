import { QueryFailedError, type QueryRunner } from 'typeorm';
import { MigrationLockTimeoutError, isTransactionPoolerError } from 'waymark';
import {
  acquireMigrationLock,
  migrationLockScope,
} from '../../../src/store/migrations/MigrationLock';

/** A query runner that records what it is sent and answers from `answer`. */
function fakeRunner(answer: (sql: string) => unknown[] = () => []) {
  const sent: string[] = [];
  const record = (sql: string) => async (): Promise<void> => void sent.push(sql);
  const runner = {
    query: async (sql: string) => {
      sent.push(sql);
      return answer(sql);
    },
    startTransaction: record('START TRANSACTION'),
    commitTransaction: record('COMMIT'),
    rollbackTransaction: record('ROLLBACK'),
  };
  return { runner: runner as unknown as QueryRunner, sent };
}

const lockTimeout = (): QueryFailedError =>
  new QueryFailedError(
    'SELECT pg_advisory_xact_lock(73615042)',
    [],
    Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }),
  );

describe('the PostgreSQL migration lock', () => {
  it('is held by the migration transaction behind a transaction pooler, by the session otherwise', () => {
    expect(migrationLockScope('postgres', { type: 'postgres', extra: { pgbouncer: true } })).toBe(
      'transaction',
    );
    expect(migrationLockScope('postgres', { type: 'postgres' })).toBe('session');
    expect(migrationLockScope('sqlite', { type: 'better-sqlite3', database: ':memory:' })).toBe(
      'transaction',
    );
    expect(migrationLockScope('mysql', { type: 'mysql' })).toBe('session');
  });

  it('in a transaction, leaves nothing on the session: SET LOCAL and pg_advisory_xact_lock, then COMMIT', async () => {
    const { runner, sent } = fakeRunner();
    const release = await acquireMigrationLock(runner, 'postgres', 'transaction', 120_000);
    await release(true);
    expect(sent).toEqual([
      'START TRANSACTION',
      'SET LOCAL lock_timeout = 120000',
      'SELECT pg_advisory_xact_lock(73615042)',
      'SET LOCAL lock_timeout TO DEFAULT',
      'COMMIT',
    ]);
  });

  it('in a transaction, a failed migration rolls the lock back with it', async () => {
    const { runner, sent } = fakeRunner();
    await (
      await acquireMigrationLock(runner, 'postgres', 'transaction', 1_000)
    )(false);
    expect(sent.at(-1)).toBe('ROLLBACK');
  });

  it('in a transaction, a lock not free in time rolls back and is a MigrationLockTimeoutError', async () => {
    const { runner, sent } = fakeRunner((sql) => {
      if (sql.includes('pg_advisory_xact_lock')) throw lockTimeout();
      return sql.includes('current_database') ? [{ db: 'app' }] : [];
    });
    const error = await acquireMigrationLock(runner, 'postgres', 'transaction', 200).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MigrationLockTimeoutError);
    expect(error).toMatchObject({
      database: 'app',
      lock: 'pg_advisory_xact_lock(73615042)',
      waitedMs: 200,
    });
    expect(sent).toEqual([
      'START TRANSACTION',
      'SET LOCAL lock_timeout = 200',
      'SELECT pg_advisory_xact_lock(73615042)',
      'ROLLBACK',
      'SELECT current_database() AS db',
    ]);
  });

  it("by the session, an unlock that finds no lock held is a pooler's doing and names pgbouncer=true", async () => {
    const { runner } = fakeRunner((sql) => (sql.includes('unlock') ? [{ released: false }] : []));
    const release = await acquireMigrationLock(runner, 'postgres', 'session', 1_000);
    const error = await release(true).catch((e: unknown) => e);
    expect(isTransactionPoolerError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^waymark could not release the migration lock: pg_advisory_lock\(73615042\) was taken, yet pg_advisory_unlock found this session held no such lock\. .*add pgbouncer=true/,
    );
  });

  it('by the session, a lock released as taken says nothing', async () => {
    const { runner, sent } = fakeRunner((sql) =>
      sql.includes('unlock') ? [{ released: true }] : [],
    );
    await (
      await acquireMigrationLock(runner, 'postgres', 'session', 1_000)
    )(true);
    expect(sent).toEqual([
      'SET lock_timeout = 1000',
      'SELECT pg_advisory_lock(73615042)',
      'RESET lock_timeout',
      'SELECT pg_advisory_unlock(73615042) AS released',
    ]);
  });
});
