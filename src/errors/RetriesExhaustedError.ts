import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** One failed attempt, as summarised in a {@link RetriesExhaustedError}. */
export interface AttemptSummary {
  readonly attempt: number;
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

/**
 * A `@Retry` step used its whole budget. Thrown into the workflow (which may catch it and
 * take a fallback branch); `cause` is the last attempt's error.
 */
export class RetriesExhaustedError extends WaymarkError {
  declare readonly code: 'RETRIES_EXHAUSTED';

  constructor(
    readonly step: string,
    readonly attempts: number,
    readonly errors: readonly AttemptSummary[],
    lastError: unknown,
  ) {
    const last = errors[errors.length - 1];
    super(
      'RETRIES_EXHAUSTED',
      `step "${step}" failed ${attempts} time(s)` +
        (last ? `; last: ${last.name}: ${last.message}` : ''),
      { cause: lastError },
    );
  }
}

brand(RetriesExhaustedError, 'RetriesExhaustedError');

/** True when `error` is a {@link RetriesExhaustedError}. */
export function isRetriesExhaustedError(error: unknown): error is RetriesExhaustedError {
  return hasBrand(error, 'RetriesExhaustedError');
}

/** The summary of an attempt's error, for logs and {@link RetriesExhaustedError.errors}. */
export function summarizeAttempt(attempt: number, error: unknown): AttemptSummary {
  const e = error as { name?: unknown; message?: unknown; code?: unknown } | null | undefined;
  return {
    attempt,
    name: typeof e?.name === 'string' ? e.name : 'Error',
    message:
      typeof e?.message === 'string'
        ? e.message
        : typeof error === 'string'
          ? error
          : (JSON.stringify(error) ?? 'undefined'),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  };
}
