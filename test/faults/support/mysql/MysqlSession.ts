import type { StatementInfo, TransactionStatus } from '../StatementInfo';
import {
  plain,
  type ClientUnit,
  type OpenStatement,
  type ServerUnit,
  type WireSession,
} from '../WireSession';
import { MysqlFramer, type MysqlPacket } from './MysqlFramer';
import { MysqlReply, type ReplyShape } from './MysqlReply';
import {
  CLIENT_DEPRECATE_EOF,
  CLIENT_QUERY_ATTRIBUTES,
  CLIENT_SSL,
  OK,
  parseOk,
  readLengthEncoded,
  transactionStatus,
} from './mysqlPayloads';

const COM_QUERY = 0x03;
const COM_CHANGE_USER = 0x11;
const COM_STMT_PREPARE = 0x16;
const COM_STMT_EXECUTE = 0x17;
const COM_STMT_CLOSE = 0x19;
const COM_RESET_CONNECTION = 0x1f;
/** MariaDB: COM_STMT_EXECUTE of the statement prepared just before, sent without waiting. */
const LAST_PREPARED = 0xffffffff;

/** How each command is answered; `none` for those the server does not answer. */
const SHAPES: Readonly<Record<number, ReplyShape | 'none'>> = {
  0x01: 'none', // COM_QUIT
  0x02: 'single', // COM_INIT_DB
  [COM_QUERY]: 'result',
  0x07: 'single', // COM_REFRESH
  0x09: 'single', // COM_STATISTICS
  0x0c: 'single', // COM_PROCESS_KILL
  0x0d: 'single', // COM_DEBUG
  0x0e: 'single', // COM_PING
  [COM_CHANGE_USER]: 'auth',
  [COM_STMT_PREPARE]: 'prepare',
  [COM_STMT_EXECUTE]: 'result',
  0x18: 'none', // COM_STMT_SEND_LONG_DATA
  [COM_STMT_CLOSE]: 'none',
  0x1a: 'single', // COM_STMT_RESET
  0x1b: 'single', // COM_SET_OPTION
  [COM_RESET_CONNECTION]: 'single',
};

/** A command sent and its reply so far, held until it is complete. */
interface Awaited {
  readonly reply: MysqlReply;
  readonly statement: StatementInfo | undefined;
  /** The SQL a COM_STMT_PREPARE sent, for the statement id its reply gives. */
  readonly prepares: string | undefined;
  readonly held: Buffer[];
}

type Phase = 'greeting' | 'handshake' | 'auth' | 'command' | 'passthrough';

/**
 * The MySQL/MariaDB client/server protocol read just enough to cut it at commands. The
 * greeting, handshake response and auth exchange (any plugin) pass through untouched; once
 * the server's OK ends it, each command with sequence id 0 is a decision point, and its
 * reply is held until its last packet: OK, ERR, or the EOF/OK that ends the last result set.
 * If the client asks for TLS, the rest passes through unread.
 */
export class MysqlSession implements WireSession {
  private readonly client = new MysqlFramer();
  private readonly server = new MysqlFramer();
  private phase: Phase = 'greeting';
  private serverCapabilities = 0;
  private capabilities = 0;
  private status: TransactionStatus = 'idle';
  /** Statement id to the SQL it was prepared from. */
  private readonly prepared = new Map<number, string>();
  private lastPrepared = '';
  /** Oldest first: the server answers in order. */
  private awaiting: Awaited[] = [];

  constructor(private readonly open: OpenStatement) {}

  fromClient(chunk: Buffer): ClientUnit[] {
    if (this.passthrough) return [plain(chunk)];
    this.client.push(chunk);
    const units: ClientUnit[] = [];
    for (let packet = this.client.next(); packet; packet = this.client.next()) {
      units.push(this.clientPacket(packet));
      if (this.passthrough) {
        units.push(plain(this.client.rest()));
        break;
      }
    }
    return units;
  }

  fromServer(chunk: Buffer): ServerUnit[] {
    if (this.passthrough) return [plain(chunk)];
    this.server.push(chunk);
    const units: ServerUnit[] = [];
    for (let packet = this.server.next(); packet; packet = this.server.next()) {
      this.serverPacket(packet, units);
    }
    return units;
  }

  drainServer(): Buffer {
    const held = this.awaiting.flatMap((entry) => entry.held.splice(0));
    return Buffer.concat([...held, this.server.rest()]);
  }

  private clientPacket(packet: MysqlPacket): ClientUnit {
    if (this.phase === 'handshake') {
      const flags = packet.payload.length >= 4 ? packet.payload.readUInt32LE(0) : 0;
      this.capabilities = (flags & this.serverCapabilities) >>> 0;
      this.phase = this.capabilities & CLIENT_SSL ? 'passthrough' : 'auth';
    }
    // Other sequence ids continue an exchange: auth answers, LOCAL INFILE data.
    if (this.phase !== 'command' || packet.continued || packet.sequence !== 0) {
      return plain(packet.raw);
    }
    return this.command(packet);
  }

  private command({ payload, raw }: MysqlPacket): ClientUnit {
    const code = payload[0];
    const shape = SHAPES[code] ?? 'untracked';
    let statement: StatementInfo | undefined;
    let prepares: string | undefined;
    switch (code) {
      case COM_QUERY:
        statement = this.open('query', this.querySql(payload), this.inTransaction);
        break;
      case COM_STMT_PREPARE:
        prepares = this.lastPrepared = payload.toString('utf8', 1);
        statement = this.open('prepare', prepares, this.inTransaction);
        break;
      case COM_STMT_EXECUTE: {
        const id = payload.readUInt32LE(1);
        const sql = id === LAST_PREPARED ? this.lastPrepared : (this.prepared.get(id) ?? '');
        statement = this.open('execute', sql, this.inTransaction);
        break;
      }
      case COM_STMT_CLOSE:
        this.prepared.delete(payload.readUInt32LE(1));
        break;
      case COM_CHANGE_USER:
      case COM_RESET_CONNECTION:
        // The server deallocates the session's prepared statements.
        this.prepared.clear();
        break;
    }
    if (shape !== 'none') {
      // An untracked reply has surely ended once the client moves on to another command.
      this.awaiting = this.awaiting.filter((entry) => entry.reply.shape !== 'untracked');
      const reply = new MysqlReply(shape, (this.capabilities & CLIENT_DEPRECATE_EOF) !== 0);
      this.awaiting.push({ reply, statement, prepares, held: [] });
    }
    return { bytes: raw, statement };
  }

  /** COM_QUERY's text, after the query attributes when both sides negotiated them. */
  private querySql(payload: Buffer): string {
    if (!(this.capabilities & CLIENT_QUERY_ATTRIBUTES)) return payload.toString('utf8', 1);
    const count = readLengthEncoded(payload, 1);
    // Attribute values precede the text; decoding them is not worth it for a classification.
    if (count.value !== 0) return '';
    return payload.toString('utf8', readLengthEncoded(payload, count.next).next);
  }

  private serverPacket(packet: MysqlPacket, units: ServerUnit[]): void {
    const { payload } = packet;
    if (this.phase === 'greeting') this.greeting(payload);
    else if (this.phase === 'auth' && !packet.continued && payload[0] === OK) {
      this.phase = 'command';
      this.status = transactionStatus(parseOk(payload).serverStatus);
    } else if (this.phase === 'command') {
      return this.reply(packet, units);
    }
    units.push(plain(packet.raw));
  }

  /** Protocol 10 greeting: version, connection id, 8 bytes of scramble, filler, flags. */
  private greeting(payload: Buffer): void {
    // An ERR instead (too many connections): the server closes the connection.
    if (payload[0] !== 0x0a) return;
    const flagsAt = payload.indexOf(0, 1) + 1 + 4 + 8 + 1;
    const lower = payload.readUInt16LE(flagsAt);
    // The upper half follows the character set (1 byte) and the status flags (2).
    const upper = payload.length >= flagsAt + 7 ? payload.readUInt16LE(flagsAt + 5) : 0;
    this.serverCapabilities = (lower | (upper << 16)) >>> 0;
    this.phase = 'handshake';
  }

  private reply(packet: MysqlPacket, units: ServerUnit[]): void {
    const head = this.awaiting[0];
    if (!head) {
      units.push(plain(packet.raw));
      return;
    }
    const step = head.reply.feed(packet);
    head.held.push(packet.raw);
    if (step === 'flush') units.push(plain(Buffer.concat(head.held.splice(0))));
    if (step !== 'done') return;
    this.awaiting.shift();
    const { reply, statement, prepares } = head;
    if (prepares !== undefined && reply.preparedId !== undefined) {
      this.prepared.set(reply.preparedId, prepares);
    }
    if (reply.serverStatus !== undefined) this.status = transactionStatus(reply.serverStatus);
    // ERR carries no status flags: after a deadlock the transaction is gone, otherwise not.
    const status = reply.error ? 'unknown' : this.status;
    const { error, tag } = reply;
    const completion = statement && { statement, status, error, tag };
    units.push({ bytes: Buffer.concat(head.held), completion });
  }

  /** TLS was asked for: the bytes are no longer readable. */
  private get passthrough(): boolean {
    return this.phase === 'passthrough';
  }

  private get inTransaction(): boolean {
    return this.status === 'transaction';
  }
}
