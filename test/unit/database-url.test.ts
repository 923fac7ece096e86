import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, Waymark, dataSourceOptionsFromUrl } from 'waymark';

describe('database URLs', () => {
  it.each([
    ['sqlite::memory:', { type: 'better-sqlite3', database: ':memory:' }],
    ['sqlite:./waymark.db', { type: 'better-sqlite3', database: './waymark.db' }],
    [
      'sqlite:/var/lib/app/waymark.db',
      { type: 'better-sqlite3', database: '/var/lib/app/waymark.db' },
    ],
    [
      'sqlite:///var/lib/app/waymark.db',
      { type: 'better-sqlite3', database: '/var/lib/app/waymark.db' },
    ],
  ])('%s opens SQLite', (url, expected) => {
    expect(dataSourceOptionsFromUrl(url)).toEqual(expected);
  });

  it('a MySQL URL gives host, port, credentials and database', () => {
    expect(dataSourceOptionsFromUrl('mysql://app:s%40cret@db.internal:3307/orders')).toMatchObject({
      type: 'mysql',
      host: 'db.internal',
      port: 3307,
      username: 'app',
      password: 's@cret',
      database: 'orders',
    });
    expect(dataSourceOptionsFromUrl('mariadb://root@127.0.0.1/test')).toMatchObject({
      type: 'mysql',
      port: 3306,
    });
  });

  it('a PostgreSQL URL defaults to port 5432', () => {
    expect(dataSourceOptionsFromUrl('postgresql://postgres@localhost/app')).toMatchObject({
      type: 'postgres',
      host: 'localhost',
      port: 5432,
      database: 'app',
    });
  });

  it.each([
    ['', /database URL is empty/],
    ['sqlite:', /names no file/],
    ['sqlite:./waymark.db?synchronous=off', /synchronous=off; expected normal or full/],
    ['sqlite:./waymark.db?journal=wal', /unknown parameter "journal"/],
    ['redis://localhost:6379/0', /unsupported scheme "redis:"/],
    ['mysql://root:hunter2@', /malformed|must name a host and a database/],
    ['mysql://root:hunter2@db.internal:3306', /must name a host and a database/],
    ['not a url', /malformed/],
  ])('%j is refused with a clear message', (url, message) => {
    expect(() => dataSourceOptionsFromUrl(url)).toThrow(ConfigurationError);
    expect(() => dataSourceOptionsFromUrl(url)).toThrow(message);
  });

  it('never repeats a password in an error', () => {
    expect(() => dataSourceOptionsFromUrl('mysql://root:hunter2@db.internal:3306')).toThrow(
      /root:\*\*\*@/,
    );
    try {
      dataSourceOptionsFromUrl('mysql://root:hunter2@db.internal:3306');
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  describe('SQLite durability', () => {
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'waymark-url-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    // PRAGMA synchronous: 1 is NORMAL, 2 is FULL.
    it.each([
      ['', 1],
      ['?synchronous=normal', 1],
      ['?synchronous=full', 2],
      ['?synchronous=FULL', 2],
    ])('sqlite:<file>%s opens the file in WAL mode with synchronous=%i', async (query, level) => {
      const runtime = await Waymark.create({
        database: `sqlite:${join(dir, `durability-${level}-${query.length}.db`)}${query}`,
      });
      try {
        const [sync] =
          await runtime.dataSource.query<Array<{ synchronous: number }>>('PRAGMA synchronous');
        const [journal] =
          await runtime.dataSource.query<Array<{ journal_mode: string }>>('PRAGMA journal_mode');
        expect(sync.synchronous).toBe(level);
        expect(journal.journal_mode).toBe('wal');
      } finally {
        await runtime.close();
      }
    });
  });
});
