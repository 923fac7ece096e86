import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, Waymark, dataSourceOptionsFromUrl } from 'waymark';
import { redact } from '../../../../../src/store/connection/url/DatabaseUrl';

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

  it('a PostgreSQL URL keeps one pooled connection open (no idle timer armed per statement)', () => {
    expect(dataSourceOptionsFromUrl('postgres://u@db/app?poolSize=4')).toMatchObject({
      poolSize: 4,
      extra: { min: 1 },
    });
  });

  it.each([
    ['', /database URL is empty/],
    ['sqlite:', /names no file/],
    // Read as a URL, what follows `//` is a host: never a silent `/waymark.db` at the root.
    [
      'sqlite://waymark.db',
      /puts "waymark.db" where a URL has its host; write 'sqlite:waymark.db'/,
    ],
    [
      'sqlite://./rel.db',
      /puts "\.\/rel\.db" where a URL has its host; write 'sqlite:\.\/rel\.db'/,
    ],
    ['sqlite:./waymark.db?synchronous=off', /synchronous=off; expected normal or full/],
    ['sqlite:./waymark.db?journal=wal', /unknown parameter "journal"/],
    ['redis://localhost:6379/0', /unsupported scheme "redis:"/],
    ['mysql://root:hunter2@', /malformed|must name a host and a database/],
    ['mysql://root:hunter2@db.internal:3306', /must name a host and a database/],
    ['not a url', /malformed/],
    ['mysql://root@db:99999/app', /"db:99999" is not a list of "host" or "host:port"/],
    ['postgres://u@db/app?sslmode=required', /sslmode=required; expected disable, prefer, require/],
    ['mysql://u@db/app?ssl-mode=VERIFY', /ssl-mode=VERIFY; expected DISABLED, PREFERRED, REQUIRED/],
    ['postgres://u@db/app?ssl=yes', /ssl=yes; expected true or false/],
    ['postgres://u@db/app?sslmode=require&ssl=true', /gives both sslmode and ssl/],
    ['postgres://u@db/app?sslmode=require&sslmode=disable', /gives parameter "sslmode" twice/],
    ['mysql://u@db/app?ssl-mode=REQUIRED&ssl_mode=REQUIRED', /as "ssl-mode" and "ssl_mode"/],
    ['postgres://u@db/app?sslmode=disable&sslrootcert=ca.pem', /sslmode=disable turns TLS off/],
    ['postgres://u@db/app?sslmode=prefer&sslrootcert=ca.pem', /verifies no certificate/],
    ['postgres://u@db/app?sslmode=require&sslcert=c.pem', /without a key/],
    ['postgres://u@db/app?sslkey=k.pem', /names sslkey but no sslmode/],
    ['postgres://u@db/app?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem', /ENOENT/],
    ['postgres://u@db/app?poolSize=0', /poolSize=0; expected a whole number/],
  ])('%j is refused with a clear message', (url, message) => {
    expect(() => dataSourceOptionsFromUrl(url)).toThrow(ConfigurationError);
    expect(() => dataSourceOptionsFromUrl(url)).toThrow(message);
  });

  it.each([
    ['postgres://u@db/app?sslmod=require', '"sslmod"', 'sslmode, ssl, sslrootcert'],
    [
      'postgres://u@db/app?connect_timeout=5&application_name=x',
      '"connect_timeout", "application_name"',
      'sslmode',
    ],
    ['mysql://u@db/app?sslmode=require', '"sslmode"', 'ssl-mode, ssl, ssl-ca'],
    ['mariadb://u@db/app?useSSL=true', '"useSSL"', 'ssl-mode'],
  ])('an unknown parameter on a server URL is refused by name: %s', (url, named, accepted) => {
    expect(() => dataSourceOptionsFromUrl(url)).toThrow(
      new RegExp(`unknown parameters? ${named}; this URL takes only ${accepted}`),
    );
  });

  const message = (url: string): string => {
    try {
      dataSourceOptionsFromUrl(url);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`${url} was accepted`);
  };

  it.each([
    ['mysql://root:hunter2@db.internal:3306', 'hunter2', 'mysql://root:***@db.internal:3306'],
    ['postgres:/postgres:Secret@127.0.0.1/test', 'Secret', 'postgres:***@127.0.0.1/test'],
    ['postgres:postgres:Secret@127.0.0.1/test', 'Secret', 'postgres:***@127.0.0.1/test'],
    [
      'mysql://root:S3cr3t@ss@db/app?sslmode=x',
      'S3cr3t',
      'mysql://root:***@db:3306/app?sslmode=***',
    ],
    ['mysql://root:pw?d@db/app', 'pw', 'mysql://***@db/app'],
    ['mysql://root:pw/app', 'pw', 'mysql://***/app'],
    [
      'postgres://u:p@db/app?password=Secret',
      'Secret',
      'postgres://u:***@db:5432/app?password=***',
    ],
    ['redis://u:Secret@db:6379/0', 'Secret', 'redis://***@db:6379/0'],
  ])('never repeats a password in an error: %s', (url, secret, shown) => {
    expect(message(url)).not.toContain(secret);
    expect(message(url)).toContain(`"${shown}"`);
    expect(redact(url)).not.toContain(secret);
  });

  it('Waymark.create() never repeats a password either', async () => {
    for (const database of [
      'postgres:postgres:Secret@127.0.0.1/test',
      'mysql://root:S3cr3t@ss@127.0.0.1:1/test',
    ]) {
      // Port 1 refuses the connection: no retrying through it (storeRetryTimeout 0).
      const error: unknown = await Waymark.create({ database, storeRetryTimeout: 0 }).then(
        () => new Error('Waymark.create() accepted a malformed URL'),
        (e: unknown) => e,
      );
      expect((error as Error).message).toMatch(/:\*\*\*@127\.0\.0\.1/);
      expect((error as Error).message).not.toMatch(/Secret|S3cr3t|ss@/);
    }
  });

  it('says which part of the URL has a malformed percent-encoding, without repeating it', () => {
    expect(message('mysql://root:pw%zz@db/app')).toMatch(
      /^the password in database URL "mysql:\/\/root:\*\*\*@db\/app" has a malformed percent-encoding/,
    );
    expect(message('mysql://root:pw%zz@db/app')).not.toContain('%zz');
    expect(message('mysql://r%zz@db/app')).toMatch(/^the user name in database URL/);
    expect(message('mysql://root@db/a%zz')).toMatch(/^the database name in database URL/);
    expect(message('mysql://root@db/app?ssl-ca=%zz')).toMatch(
      /^parameter "ssl-ca" in database URL/,
    );
  });

  it('a password may hold "@", "/" and ":" unencoded, and is redacted whole', () => {
    expect(dataSourceOptionsFromUrl('mysql://root:S3:cr/3t@ss@db/app')).toMatchObject({
      username: 'root',
      password: 'S3:cr/3t@ss',
      host: 'db',
      database: 'app',
    });
    expect(redact('mysql://root:S3:cr/3t@ss@db/app')).toBe('mysql://root:***@db:3306/app');
  });

  describe('TLS parameters reach the driver', () => {
    let dir: string;
    let ca: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'waymark-tls-url-'));
      ca = join(dir, 'ca.pem');
      writeFileSync(ca, 'CA CERTIFICATE');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const ssl = (url: string): any => (dataSourceOptionsFromUrl(url) as { ssl?: unknown }).ssl;

    it('PostgreSQL: sslmode with libpq meanings', () => {
      expect(ssl('postgres://u@db/app')).toBeUndefined();
      expect(ssl('postgres://u@db/app?sslmode=disable')).toBe(false);
      expect(ssl('postgres://u@db/app?sslmode=require')).toEqual({ rejectUnauthorized: false });
      expect(ssl('postgres://u@db/app?sslmode=prefer')).toEqual({ rejectUnauthorized: false });
      const verifyCa = ssl(`postgres://u@db/app?sslmode=verify-ca&sslrootcert=${ca}`);
      expect(verifyCa).toMatchObject({
        rejectUnauthorized: true,
        ca: Buffer.from('CA CERTIFICATE'),
      });
      expect(verifyCa.checkServerIdentity('elsewhere', {})).toBeUndefined();
      const full = ssl(`postgres://u@db/app?sslmode=verify-full&sslrootcert=${ca}`);
      expect(full).toEqual({ rejectUnauthorized: true, ca: Buffer.from('CA CERTIFICATE') });
      // As in libpq, require with a root certificate verifies the chain.
      expect(ssl(`postgres://u@db/app?sslmode=require&sslrootcert=${ca}`)).toHaveProperty(
        'checkServerIdentity',
      );
      expect(ssl('postgres://u@db/app?ssl=true')).toEqual({ rejectUnauthorized: true });
      expect(ssl('postgres://u@db/app?sslmode=verify-full&sslrootcert=system')).toEqual({
        rejectUnauthorized: true,
      });
      expect(ssl(`postgres://u@db/app?sslmode=require&sslcert=${ca}&sslkey=${ca}`)).toMatchObject({
        cert: Buffer.from('CA CERTIFICATE'),
        key: Buffer.from('CA CERTIFICATE'),
      });
    });

    it("MySQL and MariaDB: ssl-mode with the mysql client's meanings", () => {
      expect(ssl('mysql://u@db/app?ssl-mode=DISABLED')).toBe(false);
      expect(ssl('mysql://u@db/app?ssl-mode=required')).toEqual({ rejectUnauthorized: false });
      expect(ssl(`mysql://u@db/app?ssl_mode=VERIFY_CA&ssl_ca=${ca}`)).toEqual({
        rejectUnauthorized: true,
        verifyIdentity: false,
        ca: Buffer.from('CA CERTIFICATE'),
      });
      expect(ssl(`mariadb://u@db/app?ssl-mode=VERIFY_IDENTITY&ssl-ca=${ca}`)).toMatchObject({
        rejectUnauthorized: true,
        verifyIdentity: true,
      });
      expect(ssl(`mysql://u@db/app?ssl-ca=${ca}`)).toMatchObject({ verifyIdentity: false });
      expect(ssl('mysql://u@db/app?ssl=true')).toEqual({
        rejectUnauthorized: true,
        verifyIdentity: true,
      });
    });
  });

  it('a SQLite URL whose folder does not exist is refused, and the folder is not created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waymark-url-'));
    const missing = join(dir, 'nonexistent-dir');
    try {
      await expect(Waymark.create({ database: `sqlite:${missing}/x.db` })).rejects.toThrow(
        new ConfigurationError(
          `the folder ${missing} of SQLite database ${missing}/x.db does not exist; create it first`,
        ),
      );
      expect(existsSync(missing)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
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
