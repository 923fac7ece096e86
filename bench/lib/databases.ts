import { createConnection } from 'mysql2/promise';
import { Client } from 'pg';

/**
 * The bench's own databases on the servers of this machine, created fresh for each run so
 * nothing in `test` (used by the test suite) is touched or measured.
 */
export const MARIADB = { host: '127.0.0.1', port: 3306, user: 'root', database: 'waymark_bench' };
export const POSTGRES = {
  host: '127.0.0.1',
  port: 5432,
  user: 'postgres',
  database: 'waymark_bench',
};
export const MARIADB_URL = `mysql://root@127.0.0.1:3306/${MARIADB.database}`;
export const POSTGRES_URL = `postgres://postgres@127.0.0.1:5432/${POSTGRES.database}`;
/** DBOS keeps its own system database. */
export const DBOS_DATABASE = 'waymark_bench_dbos';
export const DBOS_URL = `postgres://postgres@127.0.0.1:5432/${DBOS_DATABASE}`;

export async function recreateMariaDb(database = MARIADB.database): Promise<void> {
  const admin = await createConnection({
    host: MARIADB.host,
    port: MARIADB.port,
    user: MARIADB.user,
  });
  try {
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.query(`CREATE DATABASE \`${database}\``);
  } finally {
    await admin.end();
  }
}

export async function recreatePostgres(database: string): Promise<void> {
  const admin = new Client({
    host: POSTGRES.host,
    port: POSTGRES.port,
    user: POSTGRES.user,
    database: 'postgres',
  });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
}

/** Server versions, for the header. */
export async function serverVersions(): Promise<{ mariadb: string; postgres: string }> {
  let mariadb = 'unavailable';
  let postgres = 'unavailable';
  try {
    const c = await createConnection({
      host: MARIADB.host,
      port: MARIADB.port,
      user: MARIADB.user,
    });
    const [rows] = await c.query('SELECT VERSION() AS v');
    mariadb = String((rows as Array<{ v: string }>)[0].v);
    await c.end();
  } catch {
    /* reported as unavailable */
  }
  try {
    const c = new Client({
      host: POSTGRES.host,
      port: POSTGRES.port,
      user: POSTGRES.user,
      database: 'postgres',
    });
    await c.connect();
    postgres = String(
      (await c.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version,
    );
    await c.end();
  } catch {
    /* reported as unavailable */
  }
  return { mariadb, postgres };
}
