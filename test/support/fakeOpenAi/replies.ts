/** One tool call the fake model makes. */
export interface FakeToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/**
 * What the fake server answers to one request:
 * - `text`: an assistant message (streamed in `chunks` deltas when the request streams);
 * - `tools`: tool calls;
 * - `error`: an HTTP error with a JSON body and headers (`Retry-After`, say);
 * - `drop`: the connection is destroyed (after `afterChunks` SSE chunks when streaming);
 * - `hold`: no answer until the request's client goes away (a call "in flight" forever).
 * `delayMs` waits before answering; `chunkDelayMs` between streamed chunks.
 */
export type FakeReply = (
  | { readonly kind: 'text'; readonly text: string; readonly chunks?: number }
  | { readonly kind: 'tools'; readonly calls: readonly FakeToolCall[] }
  | {
      readonly kind: 'error';
      readonly status: number;
      readonly headers?: Record<string, string>;
      readonly message?: string;
    }
  | { readonly kind: 'drop'; readonly afterChunks?: number }
  | { readonly kind: 'hold' }
) & { readonly delayMs?: number; readonly chunkDelayMs?: number };

/** A request the server received, as it read it. */
export interface FakeRequest {
  /** 0, 1, 2… in arrival order. */
  readonly index: number;
  readonly path: string;
  readonly model: string;
  readonly stream: boolean;
  /** The messages (chat completions) or input items (responses) sent. */
  readonly messages: readonly Record<string, unknown>[];
  /** How many tool results the conversation holds: the agent loop's turn, from 0. */
  readonly turn: number;
  /** Set once the whole answer was written (false for errors, drops and holds). */
  completed: boolean;
}

/** Decides the reply to each request. */
export type FakeScript = (request: FakeRequest) => FakeReply;

/** Splits `text` into `n` pieces (the streamed deltas). */
export function splitText(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, n)));
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length > 0 ? pieces : [''];
}
