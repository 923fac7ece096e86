import { QueryFailedError, type DataSourceOptions } from 'typeorm';
import {
  isConfigurationError,
  isStoreUnavailableError,
  isTransactionPoolerError,
  isWaymarkError,
} from 'waymark';
import { describeFailure } from '../../../src/cli/describeFailure';
import { ExitCode } from '../../../src/cli/ExitCode';
import { isProcessAbort } from '../../../src/runtime/execution/processAbort';
import { detectTransactionPooler } from '../../../src/store/connection/detectTransactionPooler';

const DIRECT: DataSourceOptions = { type: 'postgres', extra: { min: 1 } };
const POOLED: DataSourceOptions = { type: 'postgres', extra: { min: 1, pgbouncer: true } };

/** An error as node-postgres raises it: the server's message, its SQLSTATE as `code`. */
const pgError = (code: string, message: string): Error =>
  Object.assign(new Error(message), { code });

describe('detecting a transaction-mode pooler from what PostgreSQL answers', () => {
  it.each([
    ['42P05', 'prepared statement "wm_3acd2d4ff4984ab2" already exists'],
    ['26000', 'prepared statement "wm_fed8f28d5141db00" does not exist'],
    ['26000', 'unnamed prepared statement does not exist'],
    ['08P01', 'bind message supplies 2 parameters, but prepared statement "s0" requires 3'],
  ])('%s %s names pgbouncer=true, and is not an outage', (code, answer) => {
    const error = detectTransactionPooler('create run "r1"', pgError(code, answer), DIRECT);
    expect(isTransactionPoolerError(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'TRANSACTION_POOLER',
      operation: 'create run "r1"',
      answer,
    });
    expect(error!.message).toMatch(
      new RegExp(`^waymark could not create run "r1": ${answer.replace(/[()]/g, '\\$&')}\\. `),
    );
    expect(error!.message).toMatch(/add pgbouncer=true to the database URL/);
    expect(error!.message).toMatch(/extra: \{ pgbouncer: true \}/);
    expect(isStoreUnavailableError(error)).toBe(false);
    expect(isConfigurationError(error)).toBe(false);
  });

  it('sees the answer through TypeORM, which wraps the driver error', () => {
    const wrapped = new QueryFailedError(
      'INSERT …',
      [],
      pgError('42P05', 'prepared statement "wm_1" already exists'),
    );
    const error = detectTransactionPooler('record step #0 of run "r1"', wrapped, DIRECT);
    expect(error?.answer).toBe('prepared statement "wm_1" already exists');
    expect(error?.cause).toBe(wrapped);
  });

  it.each([
    ['a duplicate key', pgError('23505', 'duplicate key value violates unique constraint')],
    ['a lost connection', pgError('ECONNRESET', 'read ECONNRESET')],
    ['a syntax error', pgError('42601', 'syntax error at or near "SELEC"')],
    [
      'a bind mismatch of an unnamed statement (a bug, not a pooler)',
      pgError('08P01', 'bind message supplies 1 parameters, but prepared statement "" requires 2'),
    ],
    ['another protocol violation', pgError('08P01', 'invalid message format')],
    ['a MySQL error', Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY' })],
    ['no error at all', undefined],
  ])('leaves %s alone', (_what, error) => {
    expect(detectTransactionPooler('create run "r1"', error, DIRECT)).toBeUndefined();
  });

  it('with pgbouncer=true already on, says the pooler is not in transaction mode instead', () => {
    const answer = 'unnamed prepared statement does not exist';
    const error = detectTransactionPooler('create run "r1"', pgError('26000', answer), POOLED);
    expect(error?.pgbouncer).toBe(true);
    expect(error?.message).toMatch(/names no statements.*pool_mode = transaction or session/);
    expect(error?.message).not.toMatch(/add pgbouncer=true/);
  });

  it('stops a run like an outage (nothing recorded, resumable) and is a usage error in the CLI', () => {
    const error = detectTransactionPooler(
      'create run "r1"',
      pgError('42P05', 'prepared statement "wm_1" already exists'),
      DIRECT,
    );
    expect(isProcessAbort(error)).toBe(true);
    expect(isWaymarkError(error, 'TRANSACTION_POOLER')).toBe(true);
    expect(describeFailure(error)).toEqual({ exitCode: ExitCode.Usage, message: error!.message });
  });
});
