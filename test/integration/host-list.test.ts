import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { StoreUnavailableError, Waymark, dataSourceOptionsFromUrl } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { BodyCounts, SlowPipeline } from '../support/fixtures/SlowPipeline';
import { TcpProxy } from '../support/TcpProxy';

const STEPS = 12;
const TOTAL = (STEPS * (STEPS - 1)) / 2;
/** Nothing listens on port 1 here: a host that refuses every connection. */
const DOWN = '127.0.0.1:1';

describe.each(['mariadb', 'postgres'] as const)('a URL listing several hosts on %s', (backend) => {
  let db: TestDatabase;
  let scope: DependencyContainer;
  let counts: BodyCounts;
  /** The URL with its host replaced by a comma-separated list. */
  let withHosts: (hosts: string, query?: string) => string;
  let server: string;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    const parsed = new URL(db.url);
    server = parsed.host;
    withHosts = (hosts, query = '') =>
      `${parsed.protocol}//${parsed.username}@${hosts}${parsed.pathname}${query}`;
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(() => {
    scope = rootContainer.createChildContainer();
    counts = new BodyCounts();
    scope.registerInstance(BodyCounts, counts);
  });

  it('connects to the next host when the first is down', async () => {
    const runtime = await Waymark.create({
      database: withHosts(`${DOWN},${server}`),
      container: scope,
    });
    try {
      await expect(scope.resolve(SlowPipeline).run(`next-${Date.now()}`, 3)).resolves.toBe(3);
    } finally {
      await runtime.close({ grace: 100 });
    }
  });

  it('when the host in use dies mid-run, the run goes on through the next host and no step runs twice', async () => {
    const first = await TcpProxy.start(Number(new URL(db.url).port));
    const runtime = await Waymark.create({
      database: withHosts(`127.0.0.1:${first.port},${server}`),
      container: scope,
    });
    try {
      const id = `failover-${Date.now()}`;
      const done = scope.resolve(SlowPipeline).run(id, STEPS);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(first.accepted).toBeGreaterThan(0);
      await first.kill();
      await expect(done).resolves.toBe(TOTAL);
      expect(counts.of(`slow-pipeline-${id}`)).toEqual(Array(STEPS).fill(1));
      expect((await runtime.history(`slow-pipeline-${id}`)).map((s) => s.status)).toEqual(
        Array(STEPS).fill('completed'),
      );
    } finally {
      await runtime.close({ grace: 100 });
    }
  });

  it('when no listed host takes a connection, the error names each host and its answer, never the password', async () => {
    const scheme = backend === 'mariadb' ? 'mysql' : 'postgres';
    // Start-up would wait storeRetryTimeout for a host to come up; none will.
    const attempt = Waymark.create({
      database: `${scheme}://someone:hunter2@${DOWN},127.0.0.1:2/app`,
      container: scope,
      storeRetryTimeout: 0,
    });
    await expect(attempt).rejects.toThrow(StoreUnavailableError);
    const message = await attempt.catch((e: Error) => e.message);
    expect(message).toContain(
      '127.0.0.1:1: refused the connection (ECONNREFUSED); 127.0.0.1:2: refused the connection (ECONNREFUSED)',
    );
    expect(message).not.toContain('hunter2');
  });
});

describe('target_session_attrs on PostgreSQL', () => {
  let db: TestDatabase;
  let admin: DataSource;
  let name: string;
  let url: (query: string) => string;

  beforeAll(async () => {
    db = await createTestDatabase('postgres' satisfies Backend);
    const parsed = new URL(db.url);
    name = parsed.pathname.slice(1);
    admin = await new DataSource({
      ...dataSourceOptionsFromUrl(db.url),
      database: 'postgres',
    } as DataSourceOptions).initialize();
    // Every session on this database is read-only, as on a standby.
    await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    const proxy = await TcpProxy.start(Number(parsed.port));
    closeProxy = () => proxy.kill();
    url = (query) =>
      `postgres://${parsed.username}@127.0.0.1:${proxy.port},${parsed.host}/${name}${query}`;
  });
  let closeProxy: () => Promise<void>;
  afterAll(async () => {
    await closeProxy?.();
    await admin.destroy();
    await db.drop();
  });

  it('read-write (the default) refuses hosts whose sessions are read-only, and says so for each', async () => {
    for (const query of ['', '?target_session_attrs=read-write']) {
      // Start-up would wait storeRetryTimeout for a promotion; none will come.
      const attempt = Waymark.create({
        database: url(query),
        migrate: false,
        storeRetryTimeout: 0,
      });
      await expect(attempt).rejects.toThrow(StoreUnavailableError);
      await expect(attempt).rejects.toThrow(
        /no listed database host accepts writes; tried 127\.0\.0\.1:\d+: is read-only \(default_transaction_read_only is on\); 127\.0\.0\.1:5432: is read-only/,
      );
    }
  });

  it('any takes the first host that answers, writable or not', async () => {
    const dataSource = await new DataSource(
      dataSourceOptionsFromUrl(url('?target_session_attrs=any')),
    ).initialize();
    try {
      const [row] = await dataSource.query<Array<{ read_only: string }>>(
        "SELECT current_setting('transaction_read_only') AS read_only",
      );
      expect(row.read_only).toBe('on');
    } finally {
      await dataSource.destroy();
    }
  });
});
