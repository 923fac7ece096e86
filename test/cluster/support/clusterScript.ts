import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { DataSource } from 'typeorm';

const SCRIPT = resolve(__dirname, '../../../scripts/cluster.sh');

/** The Galera nodes `scripts/cluster.sh galera up` starts, by number. */
export const GALERA_PORTS: Record<number, number> = { 1: 3311, 2: 3312, 3: 3313 };
/** The single MariaDB `scripts/cluster.sh single up` starts, with the nodes' settings. */
export const SINGLE_PORT = 3314;
/** The PostgreSQL pair of `scripts/cluster.sh postgres up`. */
export const PG_PRIMARY_PORT = 5433;
export const PG_STANDBY_PORT = 5434;

/**
 * Runs `scripts/cluster.sh` with `args` (`galera up`, `postgres kill-primary`, …); resolves
 * with what it printed, rejects with its log when it fails.
 */
export function cluster(...args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    execFile(SCRIPT, args, { timeout: 180_000 }, (error, stdout, stderr) => {
      if (error) fail(new Error(`scripts/cluster.sh ${args.join(' ')} failed: ${stderr}`));
      else done(`${stdout}${stderr}`);
    });
  });
}

/**
 * Runs a command of the script that prints the moment it acted (`galera kill`, `postgres
 * kill-primary`, `postgres promote`); resolves with that moment (epoch ms).
 */
export async function actedAt(...args: string[]): Promise<number> {
  const printed = await cluster(...args);
  const at = Number(/^(\d{13})$/m.exec(printed)?.[1]);
  if (!Number.isFinite(at)) {
    throw new Error(`scripts/cluster.sh ${args.join(' ')} printed no time: ${printed}`);
  }
  return at;
}

/**
 * A URL listing the Galera nodes in `order` (node numbers), e.g. [2, 3, 1] for a worker
 * that should use node 2 and fail over to 3, then 1.
 */
export function galeraUrl(database: string, order: number[]): string {
  const hosts = order.map((node) => `127.0.0.1:${GALERA_PORTS[node]}`).join(',');
  return `mysql://root@${hosts}/${database}`;
}

/** The PostgreSQL pair as one URL: the primary first, then the standby. */
export function postgresUrl(database = 'test'): string {
  return (
    `postgres://postgres@127.0.0.1:${PG_PRIMARY_PORT},127.0.0.1:${PG_STANDBY_PORT}/` +
    `${database}?target_session_attrs=read-write`
  );
}

/** An empty database created on the Galera cluster (through node 1, replicated to all). */
export async function createGaleraDatabase(): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `wm_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await mysqlAdmin(GALERA_PORTS[1], `CREATE DATABASE ${name}`);
  return {
    name,
    drop: () =>
      mysqlAdmin(GALERA_PORTS[1], `DROP DATABASE IF EXISTS ${name}`).catch(() => undefined),
  };
}

/** Runs one administrative statement on the MariaDB at `port`. */
export async function mysqlAdmin(port: number, sql: string): Promise<void> {
  const dataSource = new DataSource({
    type: 'mysql',
    host: '127.0.0.1',
    port,
    username: 'root',
    database: 'test',
  });
  await dataSource.initialize();
  try {
    await dataSource.query(sql);
  } finally {
    await dataSource.destroy();
  }
}
