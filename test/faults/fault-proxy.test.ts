import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { FaultProxy } from './support/FaultProxy';
import { mixedScript } from './support/mixedScript';
import { Rechunker } from './support/Rechunker';
import { connectSql, type SqlResult, type SqlSession } from './support/SqlSession';
import type { Completion, StatementInfo } from './support/StatementInfo';

const SERVER_PORT = {
  postgres: Number(process.env.WAYMARK_POSTGRES_PORT ?? 5432),
  mysql: Number(process.env.WAYMARK_MARIADB_PORT ?? 3306),
} as const;

/** How each driver reports a connection that died under it (not an SQL error). */
const CONNECTION_LOST =
  /ECONNRESET|EPIPE|PROTOCOL_CONNECTION_LOST|Connection terminated|closed|not queryable/i;

function errorOf(result: SqlResult): string {
  return 'error' in result ? result.error : `no error: ${JSON.stringify(result)}`;
}

describe.each(['postgres', 'mysql'] as const)('the fault proxy on %s', (dialect) => {
  const serverPort = SERVER_PORT[dialect];
  const tables: string[] = [];
  const opened: SqlSession[] = [];
  let direct: SqlSession;
  let proxy: FaultProxy;

  const session = async (port = proxy.port, pipeline = false): Promise<SqlSession> => {
    const db = await connectSql({ dialect, port, pipeline });
    opened.push(db);
    return db;
  };
  const newTable = async (): Promise<string> => {
    const name = `wm_fp_${randomBytes(4).toString('hex')}`;
    await direct.query(`CREATE TABLE ${name} (id INT PRIMARY KEY, v TEXT)`);
    tables.push(name);
    return name;
  };
  /** Rows with `id` in `table`, read on a connection of its own (committed rows only). */
  const rowsWith = async (table: string, id: number): Promise<number> => {
    const result = await direct.query(`SELECT COUNT(*) AS n FROM ${table} WHERE id = ?`, [id]);
    if (!('rows' in result)) throw new Error(JSON.stringify(result));
    return Number((result.rows[0] as { n: unknown }).n);
  };

  beforeAll(async () => {
    direct = await connectSql({ dialect, port: serverPort });
  });
  beforeEach(async () => {
    proxy = await FaultProxy.start({ dialect, port: serverPort });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
    await proxy.close();
  });
  afterAll(async () => {
    for (const table of tables) await direct.query(`DROP TABLE IF EXISTS ${table}`);
    await direct.close();
  });

  it('is transparent: a few hundred mixed statements give the results they give directly, however TCP cuts the bytes', async () => {
    const script = mixedScript(20261201, 240);
    const expected = await script(direct, await newTable(), false);
    const proxied = await script(await session(), await newTable(), false);

    // Both ways through a re-cutter, so the proxy reads messages split at random points.
    const toServer = await Rechunker.start(serverPort, 7);
    const cutProxy = await FaultProxy.start({ dialect, port: toServer.port });
    const toProxy = await Rechunker.start(cutProxy.port, 11);
    try {
      // PostgreSQL pipelines: several statements, each up to its Sync, in one write.
      const recut = await script(await session(toProxy.port, true), await newTable(), true);
      expect(proxied).toEqual(expected);
      expect(recut).toEqual(expected);
      expect(cutProxy.log.statements).toEqual(proxy.log.statements);
    } finally {
      await Promise.all(opened.splice(0).map((db) => db.close()));
      await toProxy.close();
      await cutProxy.close();
      await toServer.close();
    }
    const seen = Object.values(proxy.log.statements).reduce((sum, n) => sum + n, 0);
    expect(expected.length).toBeGreaterThan(300);
    expect(seen).toBeGreaterThanOrEqual(expected.length);
    expect(proxy.log.completions).toBe(seen);
    expect(expected.some((result) => 'error' in result)).toBe(true);
    expect(proxy.log.faults).toEqual([]);
  });

  it('cut-before: an INSERT dropped before the server saw it fails on the client and leaves no row', async () => {
    const table = await newTable();
    proxy.onStatement((s) =>
      s.kind === 'insert' && s.sql.includes(table) ? { kind: 'cut-before' } : undefined,
    );
    const db = await session();
    expect(await db.query('SELECT 1 AS one')).toEqual({ rows: [{ one: 1 }] });
    const result = await db.query(`INSERT INTO ${table} (id, v) VALUES (?, ?)`, [1, 'lost']);
    expect(errorOf(result)).toMatch(CONNECTION_LOST);
    expect(await rowsWith(table, 1)).toBe(0);
    expect(proxy.log.faults.map((fault) => fault.kind)).toEqual(['cut-before']);
    expect(proxy.log.summary()).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\+\\d+ms cut-before conn 1: #2 (query|execute) insert "INSERT INTO ${table} `,
        ),
      ),
    ]);
  });

  it.each(['query', 'execute'] as const)(
    'lost-ack: an autocommit INSERT (%s) the server committed fails on the client, and the row is there',
    async (how) => {
      const table = await newTable();
      proxy.onCompletion((c) =>
        c.statement.kind === 'insert' && c.statement.command !== 'prepare' && c.status === 'idle'
          ? { kind: 'lost-ack' }
          : undefined,
      );
      const db = await session();
      const result = await db[how](`INSERT INTO ${table} (id, v) VALUES (?, ?)`, [1, 'kept']);
      expect(errorOf(result)).toMatch(CONNECTION_LOST);
      expect(await rowsWith(table, 1)).toBe(1);
      expect(proxy.log.count('lost-ack')).toBe(1);
    },
  );

  it('lost-ack: a COMMIT the server carried out fails on the client, and the row is there', async () => {
    const table = await newTable();
    proxy.onCompletion((c) =>
      c.statement.kind === 'commit' && c.status === 'idle' ? { kind: 'lost-ack' } : undefined,
    );
    const db = await session();
    expect(await db.query('BEGIN')).not.toHaveProperty('error');
    const insert = await db.query(`INSERT INTO ${table} (id, v) VALUES (?, ?)`, [1, 'kept']);
    expect(insert).toEqual({ affected: 1 });
    expect(errorOf(await db.query('COMMIT'))).toMatch(CONNECTION_LOST);
    expect(await rowsWith(table, 1)).toBe(1);
  });

  it.each([true, false])(
    'cut-mid-transaction (reply forwarded: %s): the INSERT inside BEGIN is rolled back',
    async (forwardReply) => {
      const table = await newTable();
      proxy.onCompletion((c) =>
        c.statement.kind === 'insert' && c.status === 'transaction'
          ? { kind: 'cut-mid-transaction', forwardReply }
          : undefined,
      );
      const db = await session();
      await db.query('BEGIN');
      const insert = await db.query(`INSERT INTO ${table} (id, v) VALUES (?, ?)`, [1, 'gone']);
      if (forwardReply) expect(insert).toEqual({ affected: 1 });
      else expect(errorOf(insert)).toMatch(CONNECTION_LOST);
      expect(errorOf(await db.query('COMMIT'))).toMatch(CONNECTION_LOST);
      expect(await rowsWith(table, 1)).toBe(0);
      expect(proxy.log.count('cut-mid-transaction')).toBe(1);
    },
  );

  it.each(['statement', 'reply'] as const)(
    'delay: a held %s makes the reply arrive no sooner than the delay',
    async (held) => {
      const delay = { kind: 'delay', ms: 400 } as const;
      const marked = (s: StatementInfo) => s.sql.includes('held_marker');
      if (held === 'statement') proxy.onStatement((s) => (marked(s) ? delay : undefined));
      else proxy.onCompletion((c) => (marked(c.statement) ? delay : undefined));
      const db = await session();
      const started = performance.now();
      expect(await db.query('SELECT 42 AS held_marker')).toEqual({ rows: [{ held_marker: 42 }] });
      expect(performance.now() - started).toBeGreaterThanOrEqual(350);
      expect(await db.query('SELECT 1 AS one')).toEqual({ rows: [{ one: 1 }] });
      expect(proxy.log.count('delay')).toBe(1);
    },
  );

  it('refuse: new connections are refused until accept(), then taken again on the same port', async () => {
    const port = proxy.port;
    const before = await session();
    const refusing = proxy.refuse();
    await expect(connectSql({ dialect, port })).rejects.toThrow();
    expect(await before.query('SELECT 1 AS one')).toEqual({ rows: [{ one: 1 }] });
    proxy.accept();
    await refusing;
    expect(proxy.port).toBe(port);
    expect(await (await session(port)).query('SELECT 1 AS one')).toEqual({ rows: [{ one: 1 }] });
    expect(proxy.log.refused).toBe(1);
  });

  it('refuse for a period: it accepts again by itself once the period is over', async () => {
    const started = performance.now();
    const period = proxy.refuse(300);
    await expect(connectSql({ dialect, port: proxy.port })).rejects.toThrow();
    await period;
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(await (await session()).query('SELECT 1 AS one')).toEqual({ rows: [{ one: 1 }] });
  });

  it('cut-all: every open connection is cut at once', async () => {
    const [first, second] = [await session(), await session()];
    expect(await first.query('SELECT 1 AS one')).toEqual({ rows: [{ one: 1 }] });
    expect(proxy.cutAll()).toBe(2);
    expect(errorOf(await first.query('SELECT 1 AS one'))).toMatch(CONNECTION_LOST);
    expect(errorOf(await second.query('SELECT 1 AS one'))).toMatch(CONNECTION_LOST);
    expect(proxy.log.faults.map((fault) => fault.kind)).toEqual(['cut-all']);
  });
});

describe('what the decision functions are told', () => {
  const seen: StatementInfo[] = [];
  const done: Completion[] = [];
  let proxy: FaultProxy;
  let direct: SqlSession;
  let db: SqlSession;
  let table: string;

  const start = async (dialect: 'postgres' | 'mysql') => {
    proxy = await FaultProxy.start({ dialect, port: SERVER_PORT[dialect] });
    direct = await connectSql({ dialect, port: SERVER_PORT[dialect] });
    table = `wm_fp_${randomBytes(4).toString('hex')}`;
    await direct.query(`CREATE TABLE ${table} (id INT PRIMARY KEY, v TEXT)`);
    db = await connectSql({ dialect, port: proxy.port });
    proxy.onStatement((s) => void seen.push(s));
    proxy.onCompletion((c) => void done.push(c));
  };
  const told = () => seen.map((s) => [s.command, s.kind, s.sql, s.inTransaction]);
  const after = () => done.map((c) => [c.statement.sequence, c.status, c.tag]);

  afterEach(async () => {
    seen.length = 0;
    done.length = 0;
    await db.close();
    await proxy.close();
    await direct.query(`DROP TABLE ${table}`);
    await direct.close();
  });

  it('mysql2 execute: COM_STMT_PREPARE once, then COM_STMT_EXECUTE by statement id', async () => {
    await start('mysql');
    const insert = `INSERT INTO ${table} (id, v) VALUES (?, ?)`;
    const select = `SELECT v FROM ${table} WHERE id = ?`;
    await db.execute(insert, [1, 'a']);
    await db.execute(select, [1]);
    await db.query('BEGIN');
    await db.execute(insert, [2, 'b']);
    await db.execute(select, [2]);
    await db.query('COMMIT');
    expect(told()).toEqual([
      ['prepare', 'insert', insert, false],
      ['execute', 'insert', insert, false],
      ['prepare', 'select', select, false],
      ['execute', 'select', select, false],
      ['query', 'begin', 'BEGIN', false],
      ['execute', 'insert', insert, true],
      ['execute', 'select', select, true],
      ['query', 'commit', 'COMMIT', true],
    ]);
    expect(after()).toEqual([
      [1, 'idle', expect.stringMatching(/^PREPARED \d+$/)],
      [2, 'idle', 'OK 1'],
      [3, 'idle', expect.stringMatching(/^PREPARED \d+$/)],
      [4, 'idle', 'ROWS'],
      [5, 'transaction', 'OK 0'],
      [6, 'transaction', 'OK 1'],
      [7, 'transaction', 'ROWS'],
      [8, 'idle', 'OK 0'],
    ]);
  });

  it('pg: unnamed statements, and named ones parsed once and then only bound', async () => {
    await start('postgres');
    const insert = `INSERT INTO ${table} (id, v) VALUES ($1, $2)`;
    const select = `SELECT v FROM ${table} WHERE id = $1`;
    await db.query(`INSERT INTO ${table} (id, v) VALUES (?, ?)`, [1, 'a']);
    await db.execute(`SELECT v FROM ${table} WHERE id = ?`, [1], 'read');
    await db.query('BEGIN');
    await db.execute(`INSERT INTO ${table} (id, v) VALUES (?, ?)`, [2, 'b'], 'write');
    await db.execute(`SELECT v FROM ${table} WHERE id = ?`, [2], 'read');
    await db.execute(`INSERT INTO ${table} (id, v) VALUES (?, ?)`, [3, 'c'], 'write');
    await db.query('SELECT nope');
    await db.query('COMMIT');
    expect(told()).toEqual([
      ['execute', 'insert', insert, false],
      ['execute', 'select', select, false],
      ['query', 'begin', 'BEGIN', false],
      ['execute', 'insert', insert, true],
      ['execute', 'select', select, true],
      ['execute', 'insert', insert, true],
      ['query', 'select', 'SELECT nope', true],
      ['query', 'commit', 'COMMIT', true],
    ]);
    expect(after()).toEqual([
      [1, 'idle', 'INSERT 0 1'],
      [2, 'idle', 'SELECT 1'],
      [3, 'transaction', 'BEGIN'],
      [4, 'transaction', 'INSERT 0 1'],
      [5, 'transaction', 'SELECT 1'],
      [6, 'transaction', 'INSERT 0 1'],
      [7, 'failed', 'ERROR 42703'],
      // A COMMIT of a failed transaction rolls it back.
      [8, 'idle', 'ROLLBACK'],
    ]);
  });

  it('pg: a COPY FROM STDIN is let through as it comes, since the client must answer it', async () => {
    await start('postgres');
    // node-postgres answers CopyInResponse with CopyFail when no stream was given.
    expect(await db.query(`COPY ${table} FROM STDIN`)).toEqual({ error: '57014' });
    // pg settles a query at its ErrorResponse; it sends the next one after ReadyForQuery.
    expect(await db.query('SELECT 1 AS one')).toEqual({ rows: [{ one: 1 }] });
    expect(after()).toEqual([
      [1, 'idle', 'ERROR 57014'],
      [2, 'idle', 'SELECT 1'],
    ]);
  });

  it('pg: the SSLRequest and the server’s one-byte answer pass through, then the startup', async () => {
    await start('postgres');
    const socket = connect(proxy.port, '127.0.0.1');
    const replies: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => replies.push(chunk));
    const sslRequest = Buffer.alloc(8);
    sslRequest.writeInt32BE(8, 0);
    sslRequest.writeInt32BE(80877103, 4);
    socket.write(sslRequest);
    await until(() => replies.length > 0);
    expect(Buffer.concat(replies).toString()).toBe('N');
    const params = Buffer.from('user\0postgres\0database\0test\0\0');
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + params.length, 0);
    startup.writeInt32BE(196608, 4);
    socket.write(Buffer.concat([startup, params]));
    // Trust authentication: AuthenticationOk, parameters, then ReadyForQuery 'I'.
    await until(() => Buffer.concat(replies).includes(Buffer.from('Z\0\0\0\x05I')));
    expect(Buffer.concat(replies)[1]).toBe('R'.charCodeAt(0));
    socket.destroy();
  });
});

/** Waits for `condition`, checking on each turn of the event loop after I/O. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
