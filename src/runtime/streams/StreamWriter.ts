import type { Codec } from '../../codec/Codec';
import { NotInRunError } from '../../errors/NotInRunError';
import type { StreamAuthor, StreamBuffer } from './StreamBuffer';

/**
 * Writes a run's stream (from `ctx.stream<T>(name)`). `write` is synchronous: chunks are
 * stored in batches, at the latest when the step that wrote them ends (before its
 * checkpoint), so a completed step's chunks are all stored, once.
 */
export interface StreamWriter<T> {
  /** The stream's name. */
  readonly name: string;
  /**
   * The attempt of the step calling this (1, 2, … as `ctx.attempt`); 0 outside a step. A
   * step executing again after a failed attempt or a crash gets a restart marker in the
   * stream before its first chunk of the new attempt.
   */
  readonly attempt: number;
  /**
   * Appends `chunk` (any value waymark can store). Call it in a step. Throws
   * `SerializationError` naming the stream when the chunk cannot be stored, and
   * `StreamClosedError` after `close()`.
   */
  write(chunk: T): void;
  /**
   * Records a restart marker for the calling step now: its output begins again (say, a model
   * call retried inside one attempt), so readers drop its chunks before the marker. A step
   * executing again after a failed attempt or a crash gets one without calling this.
   */
  restart(): void;
  /** Stores the chunks written so far now, rather than within 50 ms. */
  flush(): Promise<void>;
  /** Stores what is left and ends the stream: readers finish. Closing again does nothing. */
  close(): Promise<void>;
}

/** @internal The writer over one claim's buffer of a stream. */
export class BufferedStreamWriter<T> implements StreamWriter<T> {
  constructor(
    readonly name: string,
    private readonly buffer: StreamBuffer,
    private readonly codec: Codec,
    /** The step executing in the caller's async context, or null outside a step. */
    private readonly currentAuthor: () => StreamAuthor | null,
  ) {}

  get attempt(): number {
    return this.currentAuthor()?.attempt ?? 0;
  }

  write(chunk: T): void {
    const author = this.author('write()');
    this.buffer.add(author, this.codec.encode(chunk, `stream "${this.name}" chunk`));
  }

  restart(): void {
    this.buffer.restart(this.author('restart()'));
  }

  flush(): Promise<void> {
    return this.buffer.flush();
  }

  close(): Promise<void> {
    return this.buffer.close(this.currentAuthor());
  }

  private author(call: string): StreamAuthor {
    const author = this.currentAuthor();
    if (author) return author;
    throw new NotInRunError(
      `stream "${this.name}": ${call}`,
      'step',
      'step of a run (workflow code runs again on every resume, so it would write its chunks again)',
    );
  }
}
