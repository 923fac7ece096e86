import type * as TypeOrm from 'typeorm';

let loaded: typeof TypeOrm | undefined;

/**
 * TypeORM, loaded on first use: `require('waymark')` does not pay for it (about half a second
 * of start-up) until a runtime opens a database or a migration runs.
 */
export function typeorm(): typeof TypeOrm {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
  return (loaded ??= require('typeorm') as typeof TypeOrm);
}

/**
 * Whether `value` is a TypeORM DataSource, told without loading TypeORM (and so also for a
 * DataSource of another copy of TypeORM in the application).
 */
export function isDataSource(value: unknown): value is TypeOrm.DataSource {
  const candidate = value as Partial<TypeOrm.DataSource> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.initialize === 'function' &&
    typeof candidate.createQueryRunner === 'function' &&
    typeof candidate.options === 'object'
  );
}
