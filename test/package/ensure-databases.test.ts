import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ROOT } from './support/compileWithTsc';

const SCRIPT = join(ROOT, 'scripts', 'ensure-databases.sh');

function ensureDatabases(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(SCRIPT, args, { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A TCP port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('scripts/ensure-databases.sh (npm test runs it first)', () => {
  it('leaves servers that answer alone, saying nothing', () => {
    expect(ensureDatabases([])).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('with --dry-run, prints what it would do for servers that are down and changes nothing', () => {
    const run = ensureDatabases(['--dry-run', '--assume-down']);
    expect(run.status).toBe(0);
    const root = process.getuid?.() === 0;
    // As root on the default ports: the system services, as .ci/run starts them.
    expect(run.stderr).toContain(
      root ? 'starting the MariaDB service' : 'starting a throwaway MariaDB on 127.0.0.1:3306',
    );
    expect(run.stderr).toContain(
      root ? 'starting the PostgreSQL' : 'starting a throwaway PostgreSQL on 127.0.0.1:5432',
    );
    for (const line of run.stderr.trim().split('\n')) {
      expect(line).toMatch(/^(would run|ensure-databases): /);
    }
  });

  it('refuses to guess for a server on another machine', () => {
    const run = ensureDatabases(['--dry-run', '--assume-down'], {
      WAYMARK_MARIADB_HOST: 'db.example',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      'MariaDB at db.example:3306 does not answer, and it is not on this machine: start it, ' +
        'or point WAYMARK_MARIADB_HOST/PORT elsewhere',
    );
  });

  describe('on ports where nothing answers', () => {
    const dir = mkdtempSync(join(tmpdir(), 'waymark-test-databases-'));
    let env: Record<string, string>;
    beforeAll(async () => {
      env = {
        WAYMARK_MARIADB_PORT: String(await freePort()),
        WAYMARK_POSTGRES_PORT: String(await freePort()),
        WAYMARK_TEST_DB_DIR: dir,
      };
    });
    afterAll(() => {
      ensureDatabases(['--stop'], env);
      rmSync(dir, { recursive: true, force: true });
    });

    it('starts throwaway servers there, which the test suites then use', async () => {
      const started = ensureDatabases([], env);
      expect(started.stderr).toContain(
        `starting a throwaway MariaDB on 127.0.0.1:${env.WAYMARK_MARIADB_PORT}`,
      );
      expect(started.status).toBe(0);
      for (const type of ['mysql', 'postgres'] as const) {
        const dataSource = new DataSource({
          type,
          host: '127.0.0.1',
          port: Number(type === 'mysql' ? env.WAYMARK_MARIADB_PORT : env.WAYMARK_POSTGRES_PORT),
          username: type === 'mysql' ? 'root' : 'postgres',
          database: type === 'mysql' ? 'test' : 'postgres',
        });
        await dataSource.initialize();
        await expect(dataSource.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
        if (type === 'mysql') {
          // At start-up MariaDB deletes every #sql* file in its tmpdir: in the shared /tmp,
          // those of the other server's queries in flight, which then fail.
          const [{ tmpdir: serverTmp }] = await dataSource.query<Array<{ tmpdir: string }>>(
            'SELECT @@tmpdir AS tmpdir',
          );
          expect(serverTmp.startsWith(`${dir}/`)).toBe(true);
        }
        await dataSource.destroy();
      }
      // Once up, a second run finds them answering and does nothing.
      expect(ensureDatabases([], env)).toEqual({ status: 0, stdout: '', stderr: '' });
    });
  });
});
