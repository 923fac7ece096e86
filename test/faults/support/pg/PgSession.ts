import type { StatementInfo, TransactionStatus } from '../StatementInfo';
import {
  plain,
  type ClientUnit,
  type OpenStatement,
  type ServerUnit,
  type WireSession,
} from '../WireSession';
import { PgFramer, readCString, type PgMessage } from './PgFramer';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

const STATUS: Readonly<Record<string, TransactionStatus>> = {
  I: 'idle',
  T: 'transaction',
  E: 'failed',
};

/** A statement (or a bare Sync, or a FunctionCall) the server has not yet answered with 'Z'. */
interface Pending {
  readonly statement: StatementInfo | undefined;
  /** Its Sync has been sent (always, for 'Q'); before that the client may wait on a Flush. */
  synced: boolean;
  /** A COPY is under way: the client must see the replies as they come. */
  streaming: boolean;
  readonly held: Buffer[];
  tag: string;
  error: boolean;
}

/** Extended-protocol messages since the last Sync. */
interface Batch {
  readonly held: Buffer[];
  parsed: string | undefined;
  executed: string | undefined;
  /** Set once the batch has gone to the server as a statement. */
  pending: Pending | undefined;
}

/**
 * PostgreSQL's protocol 3 read just enough to cut it at statements: a simple 'Q', or an
 * extended-protocol batch released at its first Flush or Sync. Replies are held until their
 * ReadyForQuery, whose status byte tells where the session stands. An SSLRequest or
 * GSSENCRequest is forwarded with the server's one-byte answer; if the server accepts, the
 * rest is encrypted and passes through unread.
 */
export class PgSession implements WireSession {
  private readonly client = new PgFramer('startup');
  private readonly server = new PgFramer('typed');
  private passthrough = false;
  private status: TransactionStatus = 'idle';
  /** Prepared statement name ('' for the unnamed one) to its SQL. */
  private readonly statements = new Map<string, string>();
  /** Portal name to the SQL of the statement bound into it. */
  private readonly portals = new Map<string, string>();
  private batch: Batch | undefined;
  /** Oldest first: the server answers in order. */
  private readonly pending: Pending[] = [];

  constructor(private readonly open: OpenStatement) {}

  fromClient(chunk: Buffer): ClientUnit[] {
    if (this.passthrough) return [plain(chunk)];
    this.client.push(chunk);
    const units: ClientUnit[] = [];
    for (let message = this.client.next(); message; message = this.client.next()) {
      this.clientMessage(message, units);
    }
    return units;
  }

  fromServer(chunk: Buffer): ServerUnit[] {
    if (this.passthrough) return [plain(chunk)];
    this.server.push(chunk);
    const units: ServerUnit[] = [];
    for (let message = this.server.next(); message; message = this.server.next()) {
      this.serverMessage(message, units);
      if (this.passthrough) {
        units.push(plain(this.server.rest()));
        break;
      }
    }
    return units;
  }

  drainServer(): Buffer {
    const held = this.pending.flatMap((entry) => entry.held.splice(0));
    return Buffer.concat([...held, this.server.rest()]);
  }

  private clientMessage(message: PgMessage, units: ClientUnit[]): void {
    const { type, body, raw } = message;
    switch (type) {
      case '':
        return this.startupPacket(message, units);
      case 'P': {
        const name = readCString(body, 0);
        const sql = readCString(body, name.next).value;
        this.statements.set(name.value, sql);
        this.hold(raw).parsed ??= sql;
        return;
      }
      case 'B': {
        const portal = readCString(body, 0);
        const statement = readCString(body, portal.next).value;
        this.portals.set(portal.value, this.statements.get(statement) ?? '');
        this.hold(raw);
        return;
      }
      case 'E':
        this.hold(raw).executed ??= this.portals.get(readCString(body, 0).value) ?? '';
        return;
      case 'C':
        (body[0] === 0x53 ? this.statements : this.portals).delete(readCString(body, 1).value);
        this.hold(raw);
        return;
      case 'D':
        this.hold(raw);
        return;
      case 'H':
      case 'S':
        this.hold(raw);
        return this.release(units, type === 'S');
    }
    // A batch left without Flush or Sync goes first, so that bytes keep their order.
    if (this.batch?.held.length) this.release(units, false);
    if (type === 'Q') {
      const statement = this.open('query', readCString(body, 0).value, this.inTransaction);
      this.pending.push(pendingFor(statement, true));
      units.push({ bytes: raw, statement });
      return;
    }
    // A FunctionCall is answered with a ReadyForQuery of its own.
    if (type === 'F') this.pending.push(pendingFor(undefined, true));
    units.push(plain(raw));
  }

  private startupPacket({ body, raw }: PgMessage, units: ClientUnit[]): void {
    const code = body.length >= 4 ? body.readInt32BE(0) : 0;
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) this.server.framing = 'reply-byte';
    else if (code !== CANCEL_REQUEST) this.client.framing = 'typed';
    units.push(plain(raw));
  }

  private hold(raw: Buffer): Batch {
    this.batch ??= { held: [], parsed: undefined, executed: undefined, pending: undefined };
    this.batch.held.push(raw);
    return this.batch;
  }

  /** Sends the batch so far: the client now waits for the server (a Flush) or is done (Sync). */
  private release(units: ClientUnit[], sync: boolean): void {
    const batch = this.batch;
    if (!batch) return;
    const bytes = Buffer.concat(batch.held.splice(0));
    if (batch.pending) {
      units.push(plain(bytes));
    } else {
      const statement = this.batchStatement(batch);
      if (statement || sync) {
        batch.pending = pendingFor(statement, false);
        this.pending.push(batch.pending);
      }
      units.push({ bytes, statement });
    }
    if (sync) {
      if (batch.pending) batch.pending.synced = true;
      this.batch = undefined;
    }
  }

  private batchStatement(batch: Batch): StatementInfo | undefined {
    if (batch.executed !== undefined) {
      return this.open('execute', batch.executed, this.inTransaction);
    }
    if (batch.parsed !== undefined) return this.open('prepare', batch.parsed, this.inTransaction);
    return undefined;
  }

  private serverMessage({ type, body, raw }: PgMessage, units: ServerUnit[]): void {
    if (type === 'reply-byte') {
      this.passthrough = raw[0] !== 0x4e;
      units.push(plain(raw));
      return;
    }
    const head = this.pending[0];
    if (type === 'Z') this.status = STATUS[String.fromCharCode(body[0])] ?? 'unknown';
    if (!head) {
      units.push(plain(raw));
      return;
    }
    if (type === 'C') head.tag = readCString(body, 0).value;
    if (type === 'E') {
      head.error = true;
      head.tag = `ERROR ${sqlState(body)}`;
    }
    if (type === 'G' || type === 'W') head.streaming = true;
    if (type === 'Z') {
      this.pending.shift();
      const bytes = Buffer.concat([...head.held, raw]);
      const { statement, error, tag } = head;
      const completion = statement && { statement, status: this.status, error, tag };
      units.push({ bytes, completion });
    } else if (head.synced && !head.streaming) {
      head.held.push(raw);
    } else {
      units.push(plain(Buffer.concat([...head.held.splice(0), raw])));
    }
  }

  private get inTransaction(): boolean {
    return this.status !== 'idle';
  }
}

function pendingFor(statement: StatementInfo | undefined, synced: boolean): Pending {
  return { statement, synced, streaming: false, held: [], tag: '', error: false };
}

/** The SQLSTATE ('C' field) of an ErrorResponse body. */
function sqlState(body: Buffer): string {
  for (let offset = 0; offset < body.length && body[offset] !== 0;) {
    const field = readCString(body, offset + 1);
    if (body[offset] === 0x43) return field.value;
    offset = field.next;
  }
  return '';
}
