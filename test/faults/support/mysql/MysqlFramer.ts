import { ByteQueue } from '../ByteQueue';

/** A payload this long continues in the next packet. */
export const MAX_PAYLOAD = 0xffffff;

/** One MySQL packet: 3-byte length, sequence id, payload. */
export interface MysqlPacket {
  readonly sequence: number;
  readonly payload: Buffer;
  /** The whole packet as it came, to forward. */
  readonly raw: Buffer;
  /** It carries the rest of the previous packet's payload (which was `MAX_PAYLOAD` long). */
  readonly continued: boolean;
}

/** Cuts one direction of a MySQL connection into packets, however TCP split or merged them. */
export class MysqlFramer {
  private readonly queue = new ByteQueue();
  private continues = false;

  /** Queues a chunk as it came off the socket. */
  push(chunk: Buffer): void {
    this.queue.push(chunk);
  }

  /** The next whole packet, or `undefined` until more bytes arrive. */
  next(): MysqlPacket | undefined {
    const header = this.queue.peek(4);
    if (!header) return undefined;
    const length = header.readUIntLE(0, 3);
    if (this.queue.size < 4 + length) return undefined;
    const raw = this.queue.take(4 + length);
    const continued = this.continues;
    this.continues = length === MAX_PAYLOAD;
    return { sequence: raw[3], payload: raw.subarray(4), raw, continued };
  }

  /** Whatever is queued, framed or not. */
  rest(): Buffer {
    return this.queue.takeAll();
  }
}
