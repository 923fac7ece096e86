import { ByteQueue } from '../ByteQueue';

/**
 * One PostgreSQL message: `type` is its type byte (`'Q'`, `'Z'`, ...), `''` for a startup-phase
 * packet (StartupMessage, SSLRequest, GSSENCRequest, CancelRequest have no type byte), or
 * `'reply-byte'` for the server's one-byte answer to an SSLRequest or GSSENCRequest.
 */
export interface PgMessage {
  readonly type: string;
  /** What follows the length field. */
  readonly body: Buffer;
  /** The whole message as it came, to forward. */
  readonly raw: Buffer;
}

/** How the next bytes are framed. */
export type PgFraming = 'startup' | 'typed' | 'reply-byte';

/**
 * Cuts one direction of a PostgreSQL connection into messages, however TCP split or merged
 * them. A length the protocol does not allow means the bytes are not PostgreSQL; they are
 * then handed out as they come, as `type` `'?'`. After a `'reply-byte'`, framing is typed.
 */
export class PgFramer {
  private readonly queue = new ByteQueue();
  private broken = false;

  constructor(public framing: PgFraming) {}

  /** Queues a chunk as it came off the socket. */
  push(chunk: Buffer): void {
    this.queue.push(chunk);
  }

  /** The next whole message, or `undefined` until more bytes arrive. */
  next(): PgMessage | undefined {
    if (this.broken) {
      return this.queue.size > 0 ? this.unframed() : undefined;
    }
    if (this.framing === 'reply-byte') {
      if (this.queue.size < 1) return undefined;
      this.framing = 'typed';
      const raw = this.queue.take(1);
      return { type: 'reply-byte', body: raw, raw };
    }
    const typeBytes = this.framing === 'typed' ? 1 : 0;
    const header = this.queue.peek(typeBytes + 4);
    if (!header) return undefined;
    const length = header.readInt32BE(typeBytes);
    if (length < 4) {
      this.broken = true;
      return this.unframed();
    }
    if (this.queue.size < typeBytes + length) return undefined;
    const raw = this.queue.take(typeBytes + length);
    const type = typeBytes ? String.fromCharCode(raw[0]) : '';
    return { type, body: raw.subarray(typeBytes + 4), raw };
  }

  /** Whatever is queued, framed or not, for when the bytes stop being PostgreSQL's or stop. */
  rest(): Buffer {
    return this.queue.takeAll();
  }

  private unframed(): PgMessage {
    const raw = this.queue.takeAll();
    return { type: '?', body: raw, raw };
  }
}

/** The NUL-terminated string at `offset` in `body`, and where the next field starts. */
export function readCString(body: Buffer, offset: number): { value: string; next: number } {
  const end = body.indexOf(0, offset);
  const stop = end < 0 ? body.length : end;
  return { value: body.toString('utf8', offset, stop), next: stop + 1 };
}
