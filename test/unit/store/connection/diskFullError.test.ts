import { QueryFailedError } from 'typeorm';
import { StoreUnavailableError } from '../../../../src/errors/StoreUnavailableError';
import { isDiskFullError } from '../../../../src/store/connection/diskFullError';

const driverError = (fields: Record<string, unknown>): QueryFailedError =>
  new QueryFailedError(
    'INSERT …',
    [],
    Object.assign(
      new Error(typeof fields.message === 'string' ? fields.message : 'driver'),
      fields,
    ),
  );

describe('which database errors say the disk is full', () => {
  it.each([
    ['SQLite', { code: 'SQLITE_FULL', message: 'database or disk is full' }],
    ['MariaDB ER_DISK_FULL', { code: 'ER_DISK_FULL', errno: 1021 }],
    ['an InnoDB table that cannot grow', { code: 'ER_RECORD_FILE_FULL', errno: 1114 }],
    [
      'MariaDB quoting the OS',
      {
        code: 'ER_ERROR_ON_WRITE',
        errno: 1026,
        message: 'Error writing file \'./app/x.frm\' (Errcode: 28 "No space left on device")',
      },
    ],
    ['PostgreSQL disk_full', { code: '53100', message: 'could not extend file' }],
  ])('%s is', (_, fields) => {
    expect(isDiskFullError(driverError(fields))).toBe(true);
    expect(isDiskFullError(new StoreUnavailableError('record step #2', driverError(fields)))).toBe(
      true,
    );
  });

  it.each([
    ['a refused connection', { code: 'ECONNREFUSED' }],
    ['a duplicate key', { code: 'ER_DUP_ENTRY' }],
    ['a SQLite constraint', { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }],
    ['PostgreSQL out of memory', { code: '53200' }],
  ])('%s is not', (_, fields) => {
    expect(isDiskFullError(driverError(fields))).toBe(false);
  });
});
