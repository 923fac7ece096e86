import type { EntityManager } from 'typeorm';
import { StoreUnavailableError } from '../../errors/StoreUnavailableError';
import type { Lifecycle } from '../../ground/Lifecycle';
import { OwnStatementFailure } from './OwnStatementFailure';
import { isLostConnectionError, isTransientStoreError } from './transientStoreError';

/** A transaction that runs a user's code (a transactional step's body) beside waymark's writes. */
export interface UserWork<T> {
  /**
   * After the transaction's connection was lost: what it committed, if its COMMIT landed
   * though no answer came back; undefined when it rolled back (and is to be run again).
   */
  committed(): Promise<T | undefined>;
}

/** What a user's transaction is retried under: the runtime's life and the retry timeout. */
export interface UserTransactionSettings {
  readonly lifecycle: Lifecycle;
  readonly timeoutMs: number;
}

/** A user's work failed on a connection found dead: the failure is the connection's. */
class LostTransactionConnection extends Error {
  constructor(readonly thrown: unknown) {
    super('the connection of the transaction was lost');
  }
}

const FIRST_DELAY_MS = 25;
const MAX_DELAY_MS = 2_000;

/**
 * A user's transaction whose connection was lost rolled back — or, lost during COMMIT,
 * committed unanswered: `user.committed()` tells which. One that rolled back is run again
 * whole, as any write through an outage, until the retry timeout; then the run stops
 * resumable (`StoreUnavailableError`). A driver's error about the dead connection is never
 * the step's outcome.
 */
export async function userTransaction<T>(
  operation: string,
  once: () => Promise<T>,
  user: UserWork<T>,
  settings: UserTransactionSettings,
): Promise<T> {
  const { lifecycle } = settings;
  const started = Date.now();
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
    let lost: unknown;
    try {
      return await once();
    } catch (error) {
      if (error instanceof LostTransactionConnection) lost = error.thrown;
      else if (isLostConnectionError(error)) lost = error;
      else if (!(error instanceof OwnStatementFailure)) throw error;
      else if (isTransientStoreError(error.cause)) lost = error.cause;
      else throw new StoreUnavailableError(operation, error.cause);
    }
    const committed = await user.committed();
    if (committed !== undefined) return committed;
    if (Date.now() - started + delay > settings.timeoutMs) {
      throw new StoreUnavailableError(operation, lost);
    }
    lifecycle.assertAlive(operation);
    await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random() / 2)));
    lifecycle.assertAlive(operation);
  }
}

/**
 * `work` whose failure is checked against its connection: a user's code may catch the
 * driver's error and throw its own, so when it fails, one `SELECT 1` asks whether the
 * connection still answers (on PostgreSQL an aborted transaction answers with an error of
 * its own, which is an answer).
 */
export function probing<TX, T>(
  work: (tx: TX, manager: EntityManager) => Promise<T>,
): (tx: TX, manager: EntityManager) => Promise<T> {
  return async (tx, manager) => {
    try {
      return await work(tx, manager);
    } catch (error) {
      if (isLostConnectionError(error)) throw error;
      const answered = await manager.query('SELECT 1').then(
        () => true,
        (probe: unknown) => !isLostConnectionError(probe),
      );
      throw answered ? error : new LostTransactionConnection(error);
    }
  };
}
