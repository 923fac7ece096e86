import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';

/** The databases the integration suites run against. */
export type Backend = 'sqlite' | 'sqlite-file' | 'mariadb' | 'postgres';

/** Every backend; the parameterised suites run on each. */
export const ALL_BACKENDS: Backend[] = ['sqlite', 'sqlite-file', 'mariadb', 'postgres'];

/** A database of its own for one test file, and how to drop it. */
export interface TestDatabase {
  readonly backend: Backend;
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * Where the servers are: 127.0.0.1:3306 (MariaDB, root) and 127.0.0.1:5432 (PostgreSQL,
 * postgres) unless WAYMARK_MARIADB_HOST/PORT/USER or WAYMARK_POSTGRES_HOST/PORT/USER say
 * otherwise (scripts/ensure-databases.sh reads the same variables).
 */
const MARIADB = {
  host: process.env.WAYMARK_MARIADB_HOST ?? '127.0.0.1',
  port: Number(process.env.WAYMARK_MARIADB_PORT ?? 3306),
  user: process.env.WAYMARK_MARIADB_USER ?? 'root',
};
const POSTGRES = {
  host: process.env.WAYMARK_POSTGRES_HOST ?? '127.0.0.1',
  port: Number(process.env.WAYMARK_POSTGRES_PORT ?? 5432),
  user: process.env.WAYMARK_POSTGRES_USER ?? 'postgres',
};

/**
 * Creates an empty database on `backend`, so suites running in parallel never see each
 * other's runs. A server that does not answer fails the test: it is never skipped.
 */
export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  const name = `wm_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  switch (backend) {
    case 'sqlite':
      return { backend, url: 'sqlite::memory:', drop: async () => undefined };
    case 'sqlite-file': {
      const dir = mkdtempSync(join(tmpdir(), 'waymark-test-'));
      return {
        backend,
        url: `sqlite:${join(dir, 'waymark.db')}`,
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    }
    case 'mariadb': {
      await admin('mysql', `CREATE DATABASE ${name}`);
      return {
        backend,
        url: `mysql://${MARIADB.user}@${MARIADB.host}:${MARIADB.port}/${name}`,
        drop: () => admin('mysql', `DROP DATABASE IF EXISTS ${name}`),
      };
    }
    case 'postgres': {
      await admin('postgres', `CREATE DATABASE ${name}`);
      return {
        backend,
        url: `postgres://${POSTGRES.user}@${POSTGRES.host}:${POSTGRES.port}/${name}`,
        drop: () => admin('postgres', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      };
    }
  }
}

async function admin(type: 'mysql' | 'postgres', sql: string): Promise<void> {
  const server = type === 'mysql' ? MARIADB : POSTGRES;
  const dataSource = new DataSource({
    type,
    host: server.host,
    port: server.port,
    username: server.user,
    database: type === 'mysql' ? 'test' : 'postgres',
  });
  try {
    await dataSource.initialize();
  } catch (error) {
    throw new Error(
      `${type === 'mysql' ? 'MariaDB' : 'PostgreSQL'} at ${server.host}:${server.port} is not reachable; ` +
        `the integration suites need it (start it, see .ci/run): ${(error as Error).message}`,
      { cause: error },
    );
  }
  try {
    await dataSource.query(sql);
  } finally {
    await dataSource.destroy();
  }
}
