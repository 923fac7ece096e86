import type { GenerateResult, StreamPart, StreamResult } from './modelTypes';
import type { StoredMessage } from './newMessages';

/**
 * A streamed model call as stored: every part in order, the response headers, and the
 * messages its prompt added (for the console; absent from calls recorded before).
 */
export interface RecordedStream {
  readonly parts: StreamPart[];
  readonly response?: StreamResult['response'];
  readonly newMessages?: StoredMessage[];
  /** The hash of the call's input (`modelInputHash`); absent from calls recorded before. */
  readonly inputHash?: string;
}

/**
 * A `doGenerate` result as stored, with the messages its prompt added (see `newMessages`) and
 * the hash of its input (`modelInputHash`), by which a replay knows the call unchanged.
 */
export type RecordedGenerate = GenerateResult & {
  readonly newMessages?: StoredMessage[];
  readonly inputHash?: string;
};

/**
 * What is stored of a `doGenerate` result: everything but the raw request and response
 * bodies (the SDK's `response.body` is the provider's JSON again, doubling the row for
 * nothing the agent loop reads), and the prompt's new messages, for people to read.
 */
export function recordGenerate(
  result: GenerateResult,
  newMessages: StoredMessage[],
  inputHash: string,
): RecordedGenerate {
  const stored: GenerateResult = { ...result };
  delete stored.request;
  if (!result.response) return { ...stored, newMessages, inputHash };
  const response = { ...result.response };
  delete response.body;
  return { ...stored, response, newMessages, inputHash };
}

/** A stored `doGenerate` result as the SDK expects it: without what was kept for people. */
export function replayGenerate(recorded: RecordedGenerate): GenerateResult {
  const result: RecordedGenerate = { ...recorded };
  delete (result as { newMessages?: unknown }).newMessages;
  delete (result as { inputHash?: unknown }).inputHash;
  return result;
}

/**
 * Reads a `doStream` result to its end, handing each part to `onPart` as it arrives (the
 * live token stream), and returns what is stored. A stream that errors (a dropped
 * connection) throws, so the attempt fails and is classified like any other.
 */
export async function recordStream(
  result: StreamResult,
  newMessages: StoredMessage[],
  inputHash: string,
  onPart?: (part: StreamPart) => void | Promise<void>,
): Promise<RecordedStream> {
  const parts: StreamPart[] = [];
  const reader = result.stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      if (onPart) await onPart(value);
    }
  } finally {
    reader.releaseLock();
  }
  const headers = result.response?.headers;
  return headers
    ? { parts, response: { headers }, newMessages, inputHash }
    : { parts, newMessages, inputHash };
}

/** A stored stream as the SDK expects `doStream` to answer: the parts, at once. */
export function replayStream(recorded: RecordedStream): StreamResult {
  const stream = new ReadableStream<StreamPart>({
    start(controller) {
      for (const part of recorded.parts) controller.enqueue(part);
      controller.close();
    },
  });
  return recorded.response ? { stream, response: recorded.response } : { stream };
}
