import type { Clock } from '../../ground/Clock';
import {
  MAX_APPEND_ROWS,
  MAX_BATCH_CHUNKS,
  type StreamBatchRow,
  type StreamStore,
} from '../../store/StreamStore';
import type { RunBuffer } from '../execution/RunState';
import { StreamClosedError } from '../../errors/StreamClosedError';
import type { StreamNotifier } from './StreamNotifier';

/** At most one write per this many milliseconds while chunks keep coming. */
export const BATCH_DELAY_MS = 50;
/** A batch is written at once when its chunks reach this many bytes (UTF-16 units, roughly). */
export const BATCH_BYTES = 64 * 1024;

/** Who is writing: the step (by sequence number) and its attempt; null for workflow code. */
export interface StreamAuthor {
  readonly seq: number;
  readonly step: string;
  readonly attempt: number;
}

/** Chunks of one author in a row, to be stored as one batch. */
interface Segment {
  readonly author: StreamAuthor | null;
  readonly parts: string[];
  closed: boolean;
  /** Starts with a restart marker whatever was written before (`writer.restart()`). */
  restart: boolean;
}

/** What the buffer knows of the stored stream once read. */
interface Tail {
  nextOffset: number;
  closed: boolean;
  readonly stepSeqs: Set<number>;
}

/**
 * The chunks one claim of a run has written to one stream and not yet stored: batched (one
 * write per {@link BATCH_DELAY_MS} or {@link BATCH_BYTES}), given consecutive offsets after
 * the stored ones, and preceded by a restart marker when a step that already wrote to the
 * stream (in an earlier attempt, or in a process that crashed) writes again.
 */
export class StreamBuffer implements RunBuffer {
  private segments: Segment[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private failure: { error: unknown } | undefined;
  private tail: Promise<Tail> | undefined;
  private closing = false;
  /** The attempt of each step that wrote through this claim. */
  private readonly written = new Map<number, number>();

  constructor(
    private readonly runId: string,
    /** The claim's fencing epoch: a batch is stored only while the run is still at it. */
    private readonly epoch: number,
    private readonly stream: string,
    private readonly store: StreamStore,
    private readonly clock: Clock,
    private readonly notifier: StreamNotifier,
  ) {}

  get pending(): boolean {
    return this.segments.length > 0 || this.inFlight > 0 || this.failure !== undefined;
  }

  /** Adds an encoded chunk; the batch is written later (or now, when it is full). */
  add(author: StreamAuthor, encoded: string): void {
    if (this.failure) throw this.failure.error;
    if (this.closing) throw new StreamClosedError(this.runId, this.stream);
    const last = this.segments.at(-1);
    const segment =
      last && sameAuthor(last.author, author) && last.parts.length < MAX_BATCH_CHUNKS - 1
        ? last
        : this.open(author);
    segment.parts.push(encoded);
    this.bytes += encoded.length;
    if (this.bytes >= BATCH_BYTES) this.startWrite();
    else this.timer ??= setTimeout(() => this.startWrite(), BATCH_DELAY_MS).unref();
  }

  /** Marks that `author` begins its output again: a restart marker comes next in the stream. */
  restart(author: StreamAuthor): void {
    if (this.failure) throw this.failure.error;
    if (this.closing) throw new StreamClosedError(this.runId, this.stream);
    this.open(author).restart = true;
    this.timer ??= setTimeout(() => this.startWrite(), BATCH_DELAY_MS).unref();
  }

  /** Ends the stream after the chunks written so far; closing twice does nothing more. */
  async close(author: StreamAuthor | null): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      const last = this.segments.at(-1);
      (last && sameAuthor(last.author, author) ? last : this.open(author)).closed = true;
    }
    await this.flush();
  }

  /** Stores every chunk added so far. */
  async flush(): Promise<void> {
    if (this.segments.length > 0) this.startWrite();
    await this.writing;
    if (this.failure) throw this.failure.error;
  }

  private open(author: StreamAuthor | null): Segment {
    const segment: Segment = { author, parts: [], closed: false, restart: false };
    this.segments.push(segment);
    return segment;
  }

  private startWrite(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.bytes = 0;
    while (this.segments.length > 0) {
      // Many authors interleaved (parallel steps) make many batches: a bounded INSERT each.
      const segments = this.segments.splice(0, MAX_APPEND_ROWS);
      this.inFlight++;
      this.writing = this.writing
        .then(() => (this.failure ? undefined : this.store_(segments)))
        .catch((error: unknown) => {
          this.failure ??= { error };
        })
        .finally(() => this.inFlight--);
    }
  }

  /** One INSERT of the segments' batches; offsets re-read and retried if taken meanwhile. */
  private async store_(segments: readonly Segment[]): Promise<void> {
    for (let tries = 0; ; tries++) {
      const tail = await (this.tail ??= this.readTail());
      if (tail.closed) {
        // Workflow code closing again on a resume: the stream is closed already.
        if (segments.every((s) => s.closed && s.parts.length === 0 && s.author === null)) return;
        throw new StreamClosedError(this.runId, this.stream);
      }
      const rows = this.rows(segments, tail);
      const result = await this.store.append(rows.batches, this.epoch);
      if (result === 'ok') {
        tail.nextOffset = rows.nextOffset;
        for (const { author, closed } of segments) {
          if (author) {
            tail.stepSeqs.add(author.seq);
            this.written.set(author.seq, author.attempt);
          }
          tail.closed ||= closed;
        }
        this.notifier.notify(this.runId);
        return;
      }
      if (tries >= 3)
        throw new StreamClosedError(this.runId, this.stream, 'offsets kept being taken');
      this.tail = undefined;
    }
  }

  private rows(segments: readonly Segment[], tail: Tail) {
    let offset = tail.nextOffset;
    const now = this.clock.now();
    const written = new Map(this.written);
    const batches = segments.map((segment): StreamBatchRow => {
      const { author } = segment;
      const restarted =
        author !== null &&
        (segment.restart ||
          ((tail.stepSeqs.has(author.seq) || written.has(author.seq)) &&
            written.get(author.seq) !== author.attempt));
      if (author) written.set(author.seq, author.attempt);
      const row: StreamBatchRow = {
        runId: this.runId,
        stream: this.stream,
        firstOffset: offset,
        count: segment.parts.length + (restarted ? 1 : 0),
        chunks: `[${segment.parts.join(',')}]`,
        restart: restarted ? JSON.stringify(author) : null,
        closed: segment.closed,
        stepSeq: author?.seq ?? null,
        createdAt: now,
      };
      offset += row.count;
      return row;
    });
    return { batches, nextOffset: offset };
  }

  private async readTail(): Promise<Tail> {
    const stored = await this.store.tail(this.runId, this.stream);
    return { ...stored, stepSeqs: new Set(stored.stepSeqs) };
  }
}

function sameAuthor(a: StreamAuthor | null, b: StreamAuthor | null): boolean {
  return a === b || (a !== null && b !== null && a.seq === b.seq && a.attempt === b.attempt);
}
