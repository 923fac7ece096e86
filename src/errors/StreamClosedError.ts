import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** A chunk was written to a stream that was closed (`writer.close()`): a stream ends once. */
export class StreamClosedError extends WaymarkError {
  declare readonly code: 'STREAM_CLOSED';

  constructor(
    readonly runId: string,
    readonly stream: string,
    detail = 'it was closed',
  ) {
    super('STREAM_CLOSED', `cannot write to stream "${stream}" of run "${runId}": ${detail}`);
  }
}

brand(StreamClosedError, 'StreamClosedError');

/** True when `error` is a {@link StreamClosedError}. */
export function isStreamClosedError(error: unknown): error is StreamClosedError {
  return hasBrand(error, 'StreamClosedError');
}
