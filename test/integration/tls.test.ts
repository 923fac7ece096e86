import { injectable, container as rootContainer, type DependencyContainer } from 'tsyringe';
import { DataSource } from 'typeorm';
import {
  Step,
  StoreUnavailableError,
  Waymark,
  Workflow,
  dataSourceOptionsFromUrl,
  type WaymarkRuntime,
} from 'waymark';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { ThrowawayPostgres } from '../support/ThrowawayPostgres';

@injectable()
class Greeter {
  @Workflow({ name: 'tls-greeting', id: (name: string) => `greet-${name}` })
  async greet(name: string): Promise<string> {
    const upper = await this.shout(name);
    return this.wrap(upper);
  }

  @Step()
  async shout(name: string): Promise<string> {
    return name.toUpperCase();
  }

  @Step()
  async wrap(text: string): Promise<string> {
    return `hello, ${text}!`;
  }
}

/** Opens a runtime on `url`, runs one workflow through it, closes it; returns the result. */
async function greetThrough(url: string, scope: DependencyContainer, name: string) {
  const runtime: WaymarkRuntime = await Waymark.create({ database: url, container: scope });
  try {
    const result = await scope.resolve(Greeter).greet(name);
    const history = await runtime.history(`greet-${name}`);
    return { result, steps: history.map((s) => `${s.name}:${s.status}`) };
  } finally {
    await runtime.close();
  }
}

describe('TLS asked for in a URL, against a PostgreSQL server with TLS on', () => {
  let server: ThrowawayPostgres;
  let scope: DependencyContainer;
  const url = (host: string, query: string, user = 'postgres', db = 'postgres'): string =>
    `postgres://${user}@${host}:${server.port}/${db}?${query}`;

  beforeAll(async () => {
    server = await ThrowawayPostgres.start();
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(() => {
    scope = rootContainer.createChildContainer();
  });

  it('verify-full connects over TLS with the CA, and a workflow runs through it', async () => {
    await expect(
      greetThrough(
        url('localhost', `sslmode=verify-full&sslrootcert=${server.tls.ca}`),
        scope,
        'ada',
      ),
    ).resolves.toEqual({ result: 'hello, ADA!', steps: ['shout:completed', 'wrap:completed'] });

    // The server refuses cleartext, so the runtime's connections were all encrypted; check one.
    const probe = await Waymark.create({
      database: url('localhost', `sslmode=verify-full&sslrootcert=${server.tls.ca}`),
      container: scope,
    });
    try {
      const [row] = await probe.dataSource.query<Array<{ ssl: boolean }>>(
        'SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
      );
      expect(row.ssl).toBe(true);
    } finally {
      await probe.close();
    }
  });

  it('verify-full refuses a server whose certificate another CA signed', async () => {
    const error = await Waymark.create({
      database: url('localhost', `sslmode=verify-full&sslrootcert=${server.tls.otherCa}`),
      container: scope,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(
      /^waymark could not connect to postgres:\/\/postgres@localhost:\d+\/postgres\?sslmode=verify-full&sslrootcert=\S+ over TLS \(sslmode=verify-full\): .*certificate/,
    );
  });

  it('verify-full refuses a certificate that does not name the host; verify-ca accepts it', async () => {
    // The server's certificate names only `localhost`.
    const error = await Waymark.create({
      database: url('127.0.0.1', `sslmode=verify-full&sslrootcert=${server.tls.ca}`),
      container: scope,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/over TLS \(sslmode=verify-full\): .*127\.0\.0\.1/);

    await expect(
      greetThrough(url('127.0.0.1', `sslmode=verify-ca&sslrootcert=${server.tls.ca}`), scope, 'bo'),
    ).resolves.toMatchObject({ result: 'hello, BO!' });
  });

  it('require encrypts without verifying; disable is refused by a server that demands TLS', async () => {
    await expect(
      greetThrough(url('127.0.0.1', 'sslmode=require'), scope, 'cy'),
    ).resolves.toMatchObject({
      result: 'hello, CY!',
    });
    await expect(
      Waymark.create({ database: url('127.0.0.1', 'sslmode=disable'), container: scope }),
    ).rejects.toThrow(/no encryption|pg_hba\.conf/);
  });

  it('sslcert and sslkey authenticate the client by certificate', async () => {
    const admin = new DataSource(
      dataSourceOptionsFromUrl(
        url('localhost', `sslmode=verify-full&sslrootcert=${server.tls.ca}`),
      ),
    );
    await admin.initialize();
    try {
      await admin.query('CREATE ROLE certuser LOGIN');
      await admin.query('CREATE DATABASE certdb OWNER certuser');
    } finally {
      await admin.destroy();
    }
    const { ca, clientCert, clientKey } = server.tls;
    const withCert = `sslmode=verify-full&sslrootcert=${ca}&sslcert=${clientCert}&sslkey=${clientKey}`;
    await expect(
      greetThrough(url('localhost', withCert, 'certuser', 'certdb'), scope, 'di'),
    ).resolves.toMatchObject({ result: 'hello, DI!' });
    await expect(
      Waymark.create({
        database: url('localhost', `sslmode=verify-full&sslrootcert=${ca}`, 'certuser', 'certdb'),
        container: scope,
      }),
    ).rejects.toThrow(/certificate/);
  });
});

describe.each([
  ['postgres', 'sslmode=require', 'sslmode=prefer'],
  ['mariadb', 'ssl-mode=REQUIRED', 'ssl-mode=PREFERRED'],
] as const)('TLS asked of the local %s, which has none', (backend, require, prefer) => {
  let db: TestDatabase;
  let scope: DependencyContainer;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(() => {
    scope = rootContainer.createChildContainer();
  });

  it(`${require} fails with an error that says TLS, and nothing is written`, async () => {
    const error = await Waymark.create({
      database: `${db.url}?${require}`,
      container: scope,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain(`over TLS (${require}): `);
    expect((error as Error).cause).toBeInstanceOf(Error);
    // Nothing went over the cleartext connection: not even waymark's tables were created.
    const check = new DataSource(dataSourceOptionsFromUrl(db.url));
    await check.initialize();
    try {
      const runner = check.createQueryRunner();
      await expect(runner.hasTable('waymark_migrations')).resolves.toBe(false);
      await runner.release();
    } finally {
      await check.destroy();
    }
  });

  it(`${prefer} falls back to a connection without TLS, as libpq and mysql do`, async () => {
    await expect(greetThrough(`${db.url}?${prefer}`, scope, backend)).resolves.toMatchObject({
      result: `hello, ${backend.toUpperCase()}!`,
    });
  });
});
