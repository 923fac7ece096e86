import type { ListRunsOptions } from '../store/RunQueries';
import { RUN_STATUSES, type RunStatus } from '../store/RunStatus';
import { ConsoleHttpError } from './ConsoleHttpError';

/** The body of `POST /api/runs/:id/signal`. */
export interface SignalRequest {
  /** The signal name the workflow waits for (`approval` for `waitingFor: 'signal:approval'`). */
  name: string;
  /** Any JSON; the workflow's `waitForSignal()` returns it. */
  payload?: unknown;
}

/** The body of `POST /api/runs/:id/cancel`, which may be empty. */
export interface CancelRequest {
  /** Stored with the `RunCancelledError` the run ends with. */
  reason?: string;
}

const MAX_NAME_LENGTH = 255;
const MAX_REASON_LENGTH = 1000;

/**
 * The filters of `GET /api/runs`: `status` (one or more, comma-separated or repeated),
 * `workflow`, `limit` (1 to 1000) and `cursor`; anything malformed is a 400.
 *
 * @example
 * ```ts
 * parseListQuery(new URLSearchParams('status=waiting,failed&limit=20'));
 * // { status: ['waiting', 'failed'], limit: 20 }
 * ```
 */
export function parseListQuery(query: URLSearchParams): ListRunsOptions {
  const options: ListRunsOptions = {};
  const statuses = query
    .getAll('status')
    .flatMap((value) => value.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const status of statuses) {
    if (!RUN_STATUSES.includes(status as RunStatus)) {
      throw badRequest(`unknown status "${status}"; expected one of ${RUN_STATUSES.join(', ')}`);
    }
  }
  if (statuses.length > 0) options.status = statuses as RunStatus[];
  const workflow = query.get('workflow');
  if (workflow !== null && workflow !== '') options.workflow = workflow;
  const limit = query.get('limit');
  if (limit !== null && limit !== '') {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 1000) {
      throw badRequest(`limit must be an integer from 1 to 1000, got "${limit}"`);
    }
    options.limit = Number(limit);
  }
  const cursor = query.get('cursor');
  if (cursor !== null && cursor !== '') options.cursor = cursor;
  return options;
}

/** Checks the body of a signal request: `{ name, payload? }` and nothing else. */
export function parseSignalRequest(body: unknown): SignalRequest {
  const record = objectBody(body, ['name', 'payload'], '{ "name": "approval", "payload": … }');
  const { name } = record;
  if (typeof name !== 'string' || name === '' || name.length > MAX_NAME_LENGTH) {
    throw badRequest(`"name" must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`);
  }
  return { name, ...('payload' in record ? { payload: record.payload } : {}) };
}

/** Checks the body of a cancel request: empty, or `{ reason? }`. */
export function parseCancelRequest(body: unknown): CancelRequest {
  if (body === undefined) return {};
  const { reason } = objectBody(body, ['reason'], '{ "reason": "…" }');
  if (reason === undefined) return {};
  if (typeof reason !== 'string' || reason.length > MAX_REASON_LENGTH) {
    throw badRequest(`"reason" must be a string of at most ${MAX_REASON_LENGTH} characters`);
  }
  return { reason };
}

function objectBody(
  body: unknown,
  allowed: readonly string[],
  shape: string,
): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the request body must be a JSON object: ${shape}`);
  }
  const unknown = Object.keys(body).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw badRequest(`unknown field "${unknown[0]}"; expected ${shape}`);
  }
  return body as Record<string, unknown>;
}

function badRequest(message: string): ConsoleHttpError {
  return new ConsoleHttpError(400, message);
}
