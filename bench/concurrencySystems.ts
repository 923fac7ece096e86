import { join } from 'node:path';
import { concurrencyFloors } from './concurrencyFloors';
import type { System } from './lib/workload';
import * as waymark from './systems/waymark';

export const WAYMARK_ALONE = 'waymark, groupCommit: false';

/**
 * The systems of the concurrency section: waymark with group commit (its default) and
 * without, the two floors, and DBOS, on SQLite FULL, MariaDB and PostgreSQL.
 */
export function concurrencySystems(dir: string): System[] {
  /* eslint-disable-next-line @typescript-eslint/no-require-imports */
  const { DbosSystem } = require('./systems/dbos') as typeof import('./systems/dbos');
  /* eslint-disable-next-line @typescript-eslint/no-require-imports */
  const { versionOf } = require('./lib/install') as typeof import('./lib/install');
  const backends = waymark
    .waymarkDatabases(join(dir, 'concurrency'))
    .filter(({ db }) => db !== waymark.SQLITE_NORMAL);
  return [
    ...backends.flatMap(({ db, database, channel }) => [
      new waymark.WaymarkSystem(db, database, channel),
      new waymark.WaymarkSystem(db, database, channel, { groupCommit: false }, WAYMARK_ALONE),
    ]),
    ...concurrencyFloors(dir),
    new DbosSystem(versionOf('@dbos-inc/dbos-sdk')),
  ];
}
