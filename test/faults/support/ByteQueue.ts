/**
 * Bytes received but not yet framed. Chunks are kept as they came and joined only when a
 * message is taken, so a large message arriving in many chunks is copied once, not once
 * per chunk.
 */
export class ByteQueue {
  private readonly chunks: Buffer[] = [];
  private total = 0;

  /** How many bytes are queued. */
  get size(): number {
    return this.total;
  }

  /** Queues a chunk as it came off the socket. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.total += chunk.length;
  }

  /** The first `n` bytes, left queued; `undefined` while fewer have arrived. */
  peek(n: number): Buffer | undefined {
    if (this.total < n) return undefined;
    const parts: Buffer[] = [];
    let have = 0;
    for (const chunk of this.chunks) {
      if (have >= n) break;
      parts.push(chunk);
      have += chunk.length;
    }
    return (parts.length === 1 ? parts[0] : Buffer.concat(parts, have)).subarray(0, n);
  }

  /** Removes and returns the first `n` bytes, which must have arrived. */
  take(n: number): Buffer {
    if (this.total < n) throw new RangeError(`asked for ${n} bytes, ${this.total} queued`);
    if (n === 0) return Buffer.alloc(0);
    this.total -= n;
    const first = this.chunks[0];
    if (first.length > n) {
      this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const parts: Buffer[] = [];
    let wanted = n;
    while (wanted > 0) {
      const chunk = this.chunks[0];
      if (chunk.length > wanted) {
        parts.push(chunk.subarray(0, wanted));
        this.chunks[0] = chunk.subarray(wanted);
        break;
      }
      parts.push(chunk);
      this.chunks.shift();
      wanted -= chunk.length;
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts, n);
  }

  /** Removes and returns everything queued. */
  takeAll(): Buffer {
    return this.take(this.total);
  }
}
