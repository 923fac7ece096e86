import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** How long an operation was retried through an outage before it gave up. */
export interface OutageRetried {
  /** How long it was retried, in ms. */
  readonly retriedMs: number;
  /** The `storeRetryTimeout` it was retried within, in ms. */
  readonly timeoutMs: number;
}

/**
 * The database did not answer or refused a write waymark needs. The run is left as it
 * was, resumable, and nothing is recorded as its outcome. When waymark retried through an
 * outage first, the message says for how long (`retriedMs`).
 *
 * @example
 * ```ts
 * // waymark could not connect to postgres://app@db:5432/app in 29.6 s of retries
 * // (storeRetryTimeout 30 s): connect ECONNREFUSED 10.0.0.5:5432
 * try { await Waymark.create({ database }); }
 * catch (e) { if (isStoreUnavailableError(e)) console.error(e.message, e.retriedMs); }
 * ```
 */
export class StoreUnavailableError extends WaymarkError {
  declare readonly code: 'STORE_UNAVAILABLE';

  /** How long the operation was retried through the outage, when it was; in ms. */
  readonly retriedMs?: number;

  constructor(operation: string, cause: unknown, retried?: OutageRetried) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const during = retried
      ? ` in ${seconds(retried.retriedMs)} of retries (storeRetryTimeout ${seconds(retried.timeoutMs)})`
      : '';
    super('STORE_UNAVAILABLE', `waymark could not ${operation}${during}: ${reason}`, { cause });
    if (retried) this.retriedMs = retried.retriedMs;
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

brand(StoreUnavailableError, 'StoreUnavailableError');

/** True when `error` is a {@link StoreUnavailableError}. */
export function isStoreUnavailableError(error: unknown): error is StoreUnavailableError {
  return hasBrand(error, 'StoreUnavailableError');
}
