import { isInvalidArgumentError } from '../errors/InvalidArgumentError';
import { assertSignalKey, assertSignalName } from '../model/identifiers';
import { MAX_SEQ } from '../model/HistoryPage';
import { type HistoryPageOptions } from '../model/HistoryPage';
import type { ListRunsOptions } from '../model/RunRecords';
import { RUN_STATUSES, type RunStatus } from '../model/RunStatus';
import { ConsoleHttpError } from './ConsoleHttpError';

/** The body of `POST /api/runs/:id/signal`. */
export interface SignalRequest {
  /** The signal name the workflow waits for (`approval` for `waitingFor: 'signal:approval'`). */
  name: string;
  /** Any JSON; the workflow's `waitForSignal()` returns it. */
  payload?: unknown;
  /** Stored at most once per run, name and key (`signal(…, { idempotencyKey })`). */
  idempotencyKey?: string;
}

/** The body of `POST /api/runs/:id/cancel`, which may be empty. */
export interface CancelRequest {
  /** Stored with the `RunCancelledError` the run ends with. */
  reason?: string;
}

const MAX_REASON_LENGTH = 1000;

/** Steps in one `GET /api/runs/:id` when `limit` is not given. */
export const DEFAULT_STEPS_PAGE = 200;

/**
 * The most steps one `GET /api/runs/:id` answers with: with error messages cut at
 * {@link MAX_ERROR_TEXT} characters, a page stays well under 1 MB.
 */
export const MAX_STEPS_PAGE = 500;

/** Error messages in the step list are cut at this many characters. */
export const MAX_ERROR_TEXT = 1000;

/**
 * Stored values (a run's arguments, each step's output) are cut at this many characters:
 * the page shows their start and expands to this much (`waymark show --json` prints them whole).
 */
export const MAX_VALUE_TEXT = 1000;

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
  const waitingFor = query.get('waitingFor');
  if (waitingFor !== null && waitingFor !== '') {
    if (waitingFor !== 'signal' && waitingFor !== 'sleep' && waitingFor !== 'retry') {
      throw badRequest(`waitingFor must be signal, sleep or retry, got "${waitingFor}"`);
    }
    options.waitingFor = waitingFor;
  }
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

/**
 * The page of `GET /api/runs/:id`: `from` (the first step's seq, default 0) and `limit`
 * (1 to {@link MAX_STEPS_PAGE}, default {@link DEFAULT_STEPS_PAGE}).
 *
 * @example
 * ```ts
 * parseStepsQuery(new URLSearchParams('from=200&limit=100')); // { from: 200, limit: 100 }
 * ```
 */
export function parseStepsQuery(
  query: URLSearchParams,
): Required<Pick<HistoryPageOptions, 'from' | 'limit'>> {
  const from = wholeNumber(query.get('from'), 'from', 0, MAX_SEQ) ?? 0;
  const limit = wholeNumber(query.get('limit'), 'limit', 1, MAX_STEPS_PAGE) ?? DEFAULT_STEPS_PAGE;
  return { from, limit };
}

function wholeNumber(
  text: string | null,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (text === null || text === '') return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw badRequest(`${name} must be an integer from ${min} to ${max}, got "${text}"`);
  }
  return Number(text);
}

/** Checks the body of a signal request: `{ name, payload?, idempotencyKey? }` and nothing else. */
export function parseSignalRequest(body: unknown): SignalRequest {
  const record = objectBody(
    body,
    ['name', 'payload', 'idempotencyKey'],
    '{ "name": "approval", "payload": …, "idempotencyKey"?: "…" }',
  );
  const { name, idempotencyKey } = record;
  try {
    assertSignalName(name, '"name"');
    if (idempotencyKey !== undefined) assertSignalKey(idempotencyKey, '"idempotencyKey"');
  } catch (error) {
    throw isInvalidArgumentError(error) ? badRequest(error.message) : error;
  }
  return {
    name,
    ...('payload' in record ? { payload: record.payload } : {}),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  };
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

/** Checks the body of a request that takes none: empty, or `{}`. */
export function parseEmptyRequest(body: unknown): void {
  if (body !== undefined) objectBody(body, [], '{}');
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
