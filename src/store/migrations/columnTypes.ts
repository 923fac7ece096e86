import type { QueryRunner, TableColumnOptions } from 'typeorm';
import { dialectOf } from '../connection/Dialect';

/**
 * Column builders that pick each backend's type: stored values can be up to the value
 * limit (1 MiB by default), too big for MySQL's TEXT, and ids compare byte-for-byte
 * everywhere, as they do in SQLite and PostgreSQL.
 */
export function columnTypes(queryRunner: QueryRunner) {
  const mysql = dialectOf(queryRunner.connection) === 'mysql';
  const binary = mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {};
  return {
    id: (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: '255',
      isNullable: nullable,
      ...binary,
    }),
    short: (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: '64',
      isNullable: nullable,
      ...binary,
    }),
    value: (name: string, nullable = true): TableColumnOptions => ({
      name,
      type: mysql ? 'longtext' : 'text',
      isNullable: nullable,
      ...binary,
    }),
    int: (name: string, defaultValue?: number): TableColumnOptions => ({
      name,
      type: 'integer',
      isNullable: false,
      ...(defaultValue === undefined ? {} : { default: defaultValue }),
    }),
    millis: (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'bigint',
      isNullable: nullable,
    }),
  };
}
