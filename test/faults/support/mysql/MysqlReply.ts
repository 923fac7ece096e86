import type { MysqlPacket } from './MysqlFramer';
import {
  EOF,
  ERR,
  LOCAL_INFILE,
  OK,
  SERVER_MORE_RESULTS_EXISTS,
  endsResultSet,
  eofStatus,
  parseOk,
  readLengthEncoded,
} from './mysqlPayloads';

/**
 * What a command is answered with: `result` (COM_QUERY, COM_STMT_EXECUTE: OK, ERR or result
 * sets), `prepare` (COM_STMT_PREPARE), `single` (one OK, ERR or EOF packet), `auth`
 * (COM_CHANGE_USER: an auth exchange), or `untracked` (forwarded as it comes, never done).
 */
export type ReplyShape = 'result' | 'prepare' | 'single' | 'auth' | 'untracked';

/** After a packet: wait for more, show the client what is held (it must answer), or done. */
export type ReplyStep = 'more' | 'flush' | 'done';

type Phase =
  | { readonly name: 'first' }
  | { readonly name: 'definitions'; readonly left: number; readonly then: Phase }
  | { readonly name: 'eof'; readonly then: Phase }
  | { readonly name: 'rows' }
  | { readonly name: 'done' };

const FIRST: Phase = { name: 'first' };
const ROWS: Phase = { name: 'rows' };
const DONE: Phase = { name: 'done' };

/**
 * Follows the server's reply to one command packet by packet, to know where it ends and
 * what its last OK or EOF said. Rows and column definitions are counted, never decoded.
 */
export class MysqlReply {
  /** The last status flags seen; `undefined` if the reply carried none (ERR, a prepare). */
  serverStatus: number | undefined;
  error = false;
  tag = '';
  /** The statement id a COM_STMT_PREPARE got. */
  preparedId: number | undefined;
  private phase: Phase = FIRST;

  constructor(
    readonly shape: ReplyShape,
    private readonly deprecateEof: boolean,
  ) {}

  feed(packet: MysqlPacket): ReplyStep {
    // The rest of a payload longer than one packet: its first packet was already read.
    if (packet.continued) return 'more';
    if (this.shape === 'untracked') return 'flush';
    const { payload } = packet;
    if (payload[0] === ERR) {
      this.error = true;
      this.tag = `ERROR ${payload.length >= 3 ? payload.readUInt16LE(1) : 0}`;
      return 'done';
    }
    if (this.shape === 'auth') {
      // Auth switch requests and more-data packets: the client must answer each.
      if (payload[0] !== OK) return 'flush';
      this.ok(payload);
      return 'done';
    }
    if (this.shape === 'single') {
      if (payload[0] === OK) this.ok(payload);
      else if (payload[0] === EOF && payload.length < 9) this.serverStatus = eofStatus(payload);
      return 'done';
    }
    // LOCAL INFILE: the client sends the file, then the server's OK or ERR ends the reply.
    if (this.phase === FIRST && this.shape === 'result' && payload[0] === LOCAL_INFILE) {
      return 'flush';
    }
    this.phase = this.after(payload);
    return this.phase === DONE ? 'done' : 'more';
  }

  private after(payload: Buffer): Phase {
    const phase = this.phase;
    switch (phase.name) {
      case 'first':
        return this.shape === 'prepare' ? this.prepared(payload) : this.resultStart(payload);
      case 'definitions':
        if (phase.left > 1) return { ...phase, left: phase.left - 1 };
        return phase.then;
      case 'eof':
        return phase.then;
      case 'rows':
        if (!endsResultSet(payload, this.deprecateEof)) return ROWS;
        if (this.deprecateEof) this.ok(payload);
        else this.serverStatus = eofStatus(payload);
        this.tag = 'ROWS';
        return this.more();
      case 'done':
        return DONE;
    }
  }

  private resultStart(payload: Buffer): Phase {
    if (payload[0] === OK) {
      this.ok(payload);
      return this.more();
    }
    const columns = readLengthEncoded(payload, 0).value;
    return this.definitions(columns, ROWS);
  }

  private prepared(payload: Buffer): Phase {
    this.preparedId = payload.readUInt32LE(1);
    const columns = payload.readUInt16LE(5);
    const params = payload.readUInt16LE(7);
    this.tag = `PREPARED ${this.preparedId}`;
    return this.definitions(params, this.definitions(columns, DONE));
  }

  /** `count` column definitions, then an EOF unless DEPRECATE_EOF, then `then`. */
  private definitions(count: number, then: Phase): Phase {
    if (count === 0) return then;
    const next = this.deprecateEof ? then : { name: 'eof' as const, then };
    return { name: 'definitions', left: count, then: next };
  }

  private ok(payload: Buffer): void {
    const ok = parseOk(payload);
    this.serverStatus = ok.serverStatus;
    this.tag = `OK ${ok.affectedRows}`;
  }

  /** Another result follows (a CALL, a multi-statement) when the server says so. */
  private more(): Phase {
    const status = this.serverStatus ?? 0;
    return status & SERVER_MORE_RESULTS_EXISTS ? FIRST : DONE;
  }
}
