import { classifyStatement } from './support/classifyStatement';
import { MysqlSession } from './support/mysql/MysqlSession';
import { PgSession } from './support/pg/PgSession';
import type { OpenStatement, WireSession } from './support/WireSession';
import { mulberry32, upTo } from '../support/SeededRandom';

/** One side's bytes of a conversation, in the order they cross the wire. */
type Turn = { readonly from: 'client' | 'server'; readonly bytes: Buffer };

/**
 * What a session made of a conversation fed to it in seeded random pieces: the statements,
 * and the completions, each marked if it came before the end of a server turn (every server
 * turn here ends a reply, so a completion anywhere else ended its reply early).
 */
function replay(session: WireSession, turns: Turn[], seed: number, maxPiece = 7) {
  const random = mulberry32(seed);
  const out = { client: [] as Buffer[], server: [] as Buffer[] };
  const statements: string[] = [];
  const completions: string[] = [];
  let serverBytes = 0;
  for (const { from, bytes } of turns) {
    const turnEnd = serverBytes + (from === 'server' ? bytes.length : 0);
    for (let at = 0; at < bytes.length;) {
      const piece = bytes.subarray(at, (at += 1 + upTo(random, maxPiece - 1)));
      for (const { bytes, statement } of from === 'client' ? session.fromClient(piece) : []) {
        out.client.push(bytes);
        if (statement) statements.push(`${statement.command} ${statement.kind} ${statement.sql}`);
      }
      for (const { bytes, completion } of from === 'server' ? session.fromServer(piece) : []) {
        out.server.push(bytes);
        serverBytes += bytes.length;
        if (!completion) continue;
        const early = serverBytes === turnEnd ? '' : ' (before its reply ended)';
        completions.push(`${completion.status} ${completion.tag}${early}`);
      }
    }
  }
  const sent = (side: Turn['from']) =>
    Buffer.concat(turns.filter((t) => t.from === side).map((t) => t.bytes));
  expect(Buffer.concat(out.client).equals(sent('client'))).toBe(true);
  expect(Buffer.concat(out.server).equals(sent('server'))).toBe(true);
  return { statements, completions };
}

const open: OpenStatement = (() => {
  let sequence = 0;
  return (command, sql, inTransaction) => {
    sequence++;
    return {
      connectionId: 1,
      ordinal: sequence,
      sequence,
      command,
      kind: classifyStatement(sql),
      sql,
      inTransaction,
    };
  };
})();

const u16 = (n: number) => Buffer.from([n & 0xff, n >> 8]);
const u32 = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24]);
const text = (s: string) => Buffer.from(s, 'utf8');

describe('the MySQL session', () => {
  const PROTOCOL_41 = 0x0200;
  const DEPRECATE_EOF = 0x01000000;
  const IN_TRANS = 0x0001;
  const AUTOCOMMIT = 0x0002;
  const MORE_RESULTS = 0x0008;

  const packet = (sequence: number, payload: Buffer): Buffer => {
    const header = Buffer.from([
      payload.length & 0xff,
      (payload.length >> 8) & 0xff,
      payload.length >> 16,
      sequence,
    ]);
    return Buffer.concat([header, payload]);
  };
  /** Packets of one message, the sequence ids counting on from `first`. */
  const message = (from: Turn['from'], first: number, ...payloads: Buffer[]): Turn => ({
    from,
    bytes: Buffer.concat(payloads.map((payload, i) => packet(first + i, payload))),
  });
  const ok = (status: number, affected = 0, header = 0x00) =>
    Buffer.concat([Buffer.from([header, affected, 0]), u16(status), u16(0)]);
  const eof = (status: number) => Buffer.concat([Buffer.from([0xfe]), u16(0), u16(status)]);
  const field = (s: string) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), text(s)]);
  const column = Buffer.concat([
    field('def'),
    field('test'),
    field('t'),
    field('t'),
    field('v'),
    field('v'),
  ]);
  const greeting = (capabilities: number) =>
    Buffer.concat([
      Buffer.from([0x0a]),
      text('10.11.0-MariaDB\0'),
      u32(42),
      Buffer.alloc(8, 0x61),
      Buffer.from([0]),
      u16(capabilities & 0xffff),
      Buffer.from([0x2d]),
      u16(AUTOCOMMIT),
      u16(capabilities >>> 16),
      Buffer.from([21]),
      Buffer.alloc(10),
      Buffer.alloc(13, 0x62),
      text('mysql_native_password\0'),
    ]);
  const handshakeResponse = (capabilities: number) =>
    Buffer.concat([
      u32(capabilities),
      u32(1 << 24),
      Buffer.from([0x2d]),
      Buffer.alloc(23),
      text('root\0\0test\0'),
    ]);
  const command = (code: number, body: Buffer) =>
    message('client', 0, Buffer.concat([Buffer.from([code]), body]));

  /** A result set's payloads: one column, `rows`, then its end, which says `status`. */
  const resultSet = (deprecateEof: boolean, status: number, ...rows: Buffer[]) => {
    const end = deprecateEof ? ok(status, 0, 0xfe) : eof(status);
    const columns = deprecateEof ? [column] : [column, eof(status)];
    return [Buffer.from([1]), ...columns, ...rows, end];
  };

  it.each([true, false])(
    'finds each command and where its reply ends, with DEPRECATE_EOF %s, however the bytes are cut',
    (deprecateEof) => {
      const capabilities = PROTOCOL_41 | (deprecateEof ? DEPRECATE_EOF : 0);
      const prepareOk = Buffer.concat([
        Buffer.from([0]),
        u32(7),
        u16(0),
        u16(1),
        Buffer.from([0]),
        u16(0),
      ]);
      const turns: Turn[] = [
        message('server', 0, greeting(capabilities)),
        message('client', 1, handshakeResponse(capabilities)),
        // An auth switch the client must answer before the OK.
        message(
          'server',
          2,
          Buffer.concat([
            Buffer.from([0xfe]),
            text('mysql_native_password\0'),
            Buffer.alloc(20, 1),
          ]),
        ),
        message('client', 3, Buffer.alloc(20, 2)),
        message('server', 4, ok(AUTOCOMMIT)),
        command(0x03, text('BEGIN')),
        message('server', 1, ok(IN_TRANS | AUTOCOMMIT)),
        command(0x03, text('SELECT v FROM t')),
        message(
          'server',
          1,
          ...resultSet(deprecateEof, IN_TRANS | AUTOCOMMIT, field('a'), field('b')),
        ),
        command(0x03, text('CALL two_results()')),
        // A CALL's rows, then the OK of the CALL itself: one reply.
        message(
          'server',
          1,
          ...resultSet(deprecateEof, IN_TRANS | MORE_RESULTS, field('c')),
          ok(IN_TRANS),
        ),
        command(0x16, text('INSERT INTO t (v) VALUES (?)')),
        message('server', 1, prepareOk, column, ...(deprecateEof ? [] : [eof(IN_TRANS)])),
        command(0x17, Buffer.concat([u32(7), Buffer.from([0]), u32(1)])),
        message('server', 1, ok(IN_TRANS, 1)),
        command(0x19, u32(7)),
        command(0x03, text('COMMIT')),
        message('server', 1, ok(AUTOCOMMIT)),
      ];
      for (const seed of [1, 2, 3]) {
        const { statements, completions } = replay(new MysqlSession(open), turns, seed);
        expect(statements).toEqual([
          'query begin BEGIN',
          'query select SELECT v FROM t',
          'query other CALL two_results()',
          'prepare insert INSERT INTO t (v) VALUES (?)',
          'execute insert INSERT INTO t (v) VALUES (?)',
          'query commit COMMIT',
        ]);
        expect(completions).toEqual([
          'transaction OK 0',
          'transaction ROWS',
          'transaction OK 0',
          'transaction PREPARED 7',
          'transaction OK 1',
          'idle OK 0',
        ]);
      }
    },
  );

  it('does not take a row longer than a packet, starting with 0xFE, for the end of the result set', () => {
    const capabilities = PROTOCOL_41 | DEPRECATE_EOF;
    const value = Buffer.alloc(0x1000000, 0x7a);
    const length = Buffer.alloc(9);
    length[0] = 0xfe;
    length.writeBigUInt64LE(BigInt(value.length), 1);
    const row = Buffer.concat([length, value]);
    const turns: Turn[] = [
      message('server', 0, greeting(capabilities)),
      message('client', 1, handshakeResponse(capabilities)),
      message('server', 2, ok(AUTOCOMMIT)),
      command(0x03, text('SELECT v FROM big')),
      message(
        'server',
        1,
        Buffer.from([1]),
        column,
        row.subarray(0, 0xffffff),
        row.subarray(0xffffff),
        ok(AUTOCOMMIT, 0, 0xfe),
      ),
    ];
    const { completions } = replay(new MysqlSession(open), turns, 4, 1 << 20);
    expect(completions).toEqual(['idle ROWS']);
  });
});

describe('the PostgreSQL session', () => {
  const message = (type: string, body: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeInt32BE(body.length + 4);
    return Buffer.concat([text(type), length, body]);
  };
  const cstring = (s: string) => text(`${s}\0`);
  const turn = (from: Turn['from'], ...messages: Buffer[]): Turn => ({
    from,
    bytes: Buffer.concat(messages),
  });
  const ready = (status: string) => message('Z', text(status));
  const startup = (() => {
    const params = text('user\0postgres\0\0');
    const header = Buffer.alloc(8);
    header.writeInt32BE(8 + params.length, 0);
    header.writeInt32BE(196608, 4);
    return Buffer.concat([header, params]);
  })();

  it('releases a batch at a Flush and lets its replies through until the Sync, as a cursor needs', () => {
    const session = new PgSession(open);
    const turns: Turn[] = [
      turn('client', startup),
      turn('server', message('R', Buffer.alloc(4)), ready('I')),
      turn(
        'client',
        message(
          'P',
          Buffer.concat([cstring('cursor'), cstring('SELECT n FROM t'), Buffer.alloc(2)]),
        ),
        message('B', Buffer.concat([cstring(''), cstring('cursor'), Buffer.alloc(6)])),
        message('D', Buffer.concat([text('P'), cstring('')])),
        message('E', Buffer.concat([cstring(''), Buffer.from([0, 0, 0, 1])])),
        message('H', Buffer.alloc(0)),
      ),
      turn(
        'server',
        message('1', Buffer.alloc(0)),
        message('2', Buffer.alloc(0)),
        message('s', Buffer.alloc(0)),
      ),
      turn(
        'client',
        message('E', Buffer.concat([cstring(''), Buffer.from([0, 0, 0, 1])])),
        message('H', Buffer.alloc(0)),
      ),
      turn('server', message('C', cstring('SELECT 1'))),
      turn('client', message('S', Buffer.alloc(0))),
      turn('server', ready('I')),
      turn('client', message('Q', cstring('BEGIN; INSERT INTO t VALUES (1)'))),
      turn(
        'server',
        message('C', cstring('BEGIN')),
        message('C', cstring('INSERT 0 1')),
        ready('T'),
      ),
    ];
    const units = turns.map(({ from, bytes }) => {
      const out = from === 'client' ? session.fromClient(bytes) : session.fromServer(bytes);
      const forwarded = out.reduce((sum, unit) => sum + unit.bytes.length, 0);
      return `${from}: ${out.length} units, ${bytes.length - forwarded} bytes held`;
    });
    // Nothing waits for the Sync: the client waits for the server's replies to send it.
    expect(units).toEqual([
      'client: 1 units, 0 bytes held',
      'server: 2 units, 0 bytes held',
      'client: 1 units, 0 bytes held',
      'server: 3 units, 0 bytes held',
      'client: 1 units, 0 bytes held',
      'server: 1 units, 0 bytes held',
      'client: 1 units, 0 bytes held',
      'server: 1 units, 0 bytes held',
      'client: 1 units, 0 bytes held',
      'server: 1 units, 0 bytes held',
    ]);
    expect(replay(new PgSession(open), turns, 5)).toEqual({
      statements: ['execute select SELECT n FROM t', 'query begin BEGIN; INSERT INTO t VALUES (1)'],
      completions: ['idle SELECT 1', 'transaction INSERT 0 1'],
    });
  });
});
