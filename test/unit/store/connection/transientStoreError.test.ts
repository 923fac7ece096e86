import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';
import {
  isLostConnectionError,
  isTransientStoreError,
} from '../../../../src/store/connection/transientStoreError';

const driverError = (fields: Record<string, unknown>): QueryFailedError =>
  new QueryFailedError(
    'INSERT …',
    [],
    Object.assign(
      new Error(typeof fields.message === 'string' ? fields.message : 'driver'),
      fields,
    ),
  );

describe('which database errors a retry can outlast', () => {
  it.each([
    ['a MariaDB connection killed from the server', { code: 'ER_CONNECTION_KILLED', errno: 1927 }],
    ['a lost MySQL connection', { code: 'PROTOCOL_CONNECTION_LOST' }],
    ['MySQL server gone away', { errno: 2006 }],
    ['a MySQL deadlock', { code: 'ER_LOCK_DEADLOCK' }],
    ['a locked-out MariaDB account', { code: 'ER_ACCOUNT_HAS_BEEN_LOCKED' }],
    ['pg_terminate_backend', { code: '57P01' }],
    ['a PostgreSQL serialization failure', { code: '40001' }],
    ['a PostgreSQL connection failure', { code: '08006' }],
    [
      'a database not accepting connections',
      { message: 'database "x" is not currently accepting connections' },
    ],
    ['SQLite busy', { code: 'SQLITE_BUSY' }],
    ['SQLite busy snapshot', { code: 'SQLITE_BUSY_SNAPSHOT' }],
    ['a reset socket', { code: 'ECONNRESET' }],
    ['a refused connection', { code: 'ECONNREFUSED' }],
    [
      'a Galera write set that lost certification to another node',
      {
        code: 'ER_LOCK_DEADLOCK',
        errno: 1213,
        message: 'Deadlock found when trying to get lock; try restarting transaction',
      },
    ],
    [
      'a Galera node outside the primary component',
      {
        code: 'ER_UNKNOWN_COM_ERROR',
        errno: 1047,
        message: 'WSREP has not yet prepared node for application use',
      },
    ],
    [
      'a Galera commit whose replication failed',
      { code: 'ER_ERROR_DURING_COMMIT', errno: 1180, message: 'Got error 6 during COMMIT' },
    ],
    ['a MariaDB server shutting down', { code: 'ER_SERVER_SHUTDOWN', errno: 1053 }],
    ['too many MariaDB connections', { code: 'ER_CON_COUNT_ERROR', errno: 1040 }],
    [
      "too many of a MariaDB user's connections",
      { code: 'ER_TOO_MANY_USER_CONNECTIONS', errno: 1203 },
    ],
    ['too many PostgreSQL connections', { code: '53300' }],
    ['a PostgreSQL server starting up', { code: '57P03' }],
    [
      'no listed host accepting writes (a failover in progress)',
      { code: 'NO_WRITABLE_HOST', message: 'no listed database host accepts writes; tried …' },
    ],
  ])('%s is transient', (_, fields) => {
    expect(isTransientStoreError(driverError(fields))).toBe(true);
  });

  it.each([
    ['a duplicate key', { code: 'ER_DUP_ENTRY' }],
    ['a PostgreSQL unique violation', { code: '23505' }],
    ['a syntax error', { code: 'ER_PARSE_ERROR' }],
    ['a value too long', { code: '22001' }],
    ['a SQLite constraint', { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }],
    [
      'a statement Galera cannot replicate',
      { code: 'ER_GALERA_REPLICATION_NOT_SUPPORTED', errno: 4039 },
    ],
    ['a wrong MariaDB password', { code: 'ER_ACCESS_DENIED_ERROR', errno: 1045 }],
    ['an unknown MariaDB database', { code: 'ER_BAD_DB_ERROR', errno: 1049 }],
    ['a wrong PostgreSQL password', { code: '28P01' }],
    ['an unknown PostgreSQL role', { code: '28000' }],
    ['an unknown PostgreSQL database', { code: '3D000' }],
  ])('%s is not', (_, fields) => {
    expect(isTransientStoreError(driverError(fields))).toBe(false);
  });
});

describe('which database errors say the connection is gone', () => {
  it.each([
    ['pg_terminate_backend', driverError({ code: '57P01' })],
    ['a MariaDB KILL', driverError({ code: 'ER_CONNECTION_KILLED', errno: 1927 })],
    ['a reset socket', driverError({ code: 'ECONNRESET' })],
    ['node-postgres after the server closed it', new Error('Connection terminated unexpectedly')],
    ['node-postgres used after it died', new Error('Client was closed and is not queryable')],
    [
      'mysql2 used after it died',
      new Error("Can't add new command when connection is in closed state"),
    ],
    ["TypeORM's released query runner", new QueryRunnerAlreadyReleasedError()],
    [
      "TypeORM's entity manager on a released runner",
      new QueryRunnerProviderAlreadyReleasedError(),
    ],
  ])('%s is a lost connection', (_, error) => {
    expect(isLostConnectionError(error)).toBe(true);
    expect(isTransientStoreError(error)).toBe(true);
  });

  it.each([
    ['a deadlock', driverError({ code: 'ER_LOCK_DEADLOCK' })],
    ['a PostgreSQL serialization failure', driverError({ code: '40001' })],
    ['an aborted PostgreSQL transaction', driverError({ code: '25P02' })],
    ['a duplicate key', driverError({ code: '23505' })],
    ['an error of the application', new Error('order 7 could not be saved')],
  ])('%s is not', (_, error) => {
    expect(isLostConnectionError(error)).toBe(false);
  });
});
