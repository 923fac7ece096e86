import { WaymarkError } from './WaymarkError';

/** What one host of a database URL's host list answered when waymark tried it. */
export interface HostAnswer {
  /** `host:port`. */
  readonly host: string;
  /** What it answered, e.g. `refused the connection (ECONNREFUSED)` or `is read-only (a standby)`. */
  readonly answer: string;
}

/**
 * None of the hosts a database URL lists took a connection waymark can write through: each
 * was down, refused, or (PostgreSQL with `target_session_attrs=read-write`) a read-only
 * standby. It names every host tried and its answer; passwords never appear. The store
 * treats it as an outage and retries (a standby may be promoted any moment).
 */
export class NoWritableHostError extends WaymarkError {
  declare readonly code: 'NO_WRITABLE_HOST';

  constructor(
    /** Each host tried (`host:port`) and what it answered. */
    readonly tried: readonly { readonly host: string; readonly answer: string }[],
    readonly requirement: 'accepts writes' | 'accepts connections' = 'accepts writes',
  ) {
    super(
      'NO_WRITABLE_HOST',
      `no listed database host ${requirement}; tried ` +
        tried.map((t) => `${t.host}: ${t.answer}`).join('; '),
    );
  }
}

/** True when `error` is a {@link NoWritableHostError}. */
export function isNoWritableHostError(error: unknown): error is NoWritableHostError {
  return error instanceof NoWritableHostError;
}
