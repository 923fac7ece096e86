import type { Duration } from '../../ground/Duration';

/**
 * A restart marker: the step `step` (at `seq` in the run) is executing again — attempt
 * `attempt` after a failed attempt, or after a crash cut its stream — so the chunks it wrote
 * before this marker are a partial output the UI should drop.
 */
export interface StreamRestart {
  readonly step: string;
  readonly seq: number;
  readonly attempt: number;
}

/**
 * One entry of a stream, at `offset` (0, 1, 2, … with no gap): a chunk the step at `seq`
 * wrote, or a restart marker of the step at `seq` (`restart` set, no `chunk`). On a marker,
 * drop the chunks of that `seq` received before it: they are a cut-off attempt's output.
 *
 * @example
 * ```ts
 * const parts: Array<{ seq: number; text: string }> = [];
 * for await (const { seq, chunk, restart } of runtime.readStream<string>(runId, 'llm')) {
 *   if (restart) parts.splice(0, parts.length, ...parts.filter((p) => p.seq !== seq));
 *   else parts.push({ seq, text: chunk });
 * }
 * ```
 */
export type StreamEntry<T> =
  | {
      readonly offset: number;
      readonly seq: number;
      readonly chunk: T;
      readonly restart?: undefined;
    }
  | {
      readonly offset: number;
      readonly seq: number;
      readonly chunk?: undefined;
      readonly restart: StreamRestart;
    };

/** Options of `runtime.readStream()`. */
export interface ReadStreamOptions {
  /** The first offset to read: the offset after the last entry a reconnecting reader saw. Default 0. */
  from?: number;
  /** Stops reading (the iteration ends) when aborted. */
  signal?: AbortSignal;
}

/** What `runtime.readStream()` returns: the entries of a stream, stored then live. */
export type StreamEntries<T> = AsyncIterable<StreamEntry<T>>;

/** Options of `runtime.streamToken()`: how long the token reads the stream. */
export interface StreamTokenOptions {
  /** From now; default `'1h'`. */
  expiresIn?: Duration;
  /** Instead of `expiresIn`: until this time (rounded up to the second). */
  expiresAt?: Date;
}
