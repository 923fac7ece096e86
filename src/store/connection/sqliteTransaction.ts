import type { QueryRunner } from 'typeorm';
import { OwnStatementFailure } from './OwnStatementFailure';

/**
 * SQLite: `BEGIN IMMEDIATE`, taking the write lock up front (waiting for it like any
 * write). TypeORM's deferred `BEGIN` would start reading, then fail at once with
 * SQLITE_BUSY_SNAPSHOT when another process wrote in between. The runner is marked as in
 * a transaction so TypeORM nests its own (a `save()` in a step) as savepoints. With `mark`,
 * a failed BEGIN or COMMIT is an {@link OwnStatementFailure}.
 */
export async function sqliteTransaction<T>(
  runner: QueryRunner,
  work: (runner: QueryRunner) => Promise<T>,
  mark: boolean,
): Promise<T> {
  const state = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
  const own = (error: unknown): never => {
    throw mark ? new OwnStatementFailure(error) : error;
  };
  await runner.query('BEGIN IMMEDIATE').catch(own);
  state.isTransactionActive = true;
  state.transactionDepth = 1;
  try {
    const result = await work(runner);
    await runner.query('COMMIT').catch(own);
    return result;
  } catch (error) {
    await runner.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    state.isTransactionActive = false;
    state.transactionDepth = 0;
  }
}
