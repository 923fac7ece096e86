import { QueryFailedError } from 'typeorm';
import { NonRetryableError } from '../../../src/errors/NonRetryableError';
import { RetryableError } from '../../../src/errors/RetryableError';
import { StepTimeoutError } from '../../../src/errors/StepTimeoutError';
import {
  ClassificationRules,
  TRANSIENT_HTTP_STATUSES,
  TRANSIENT_NETWORK_CODES,
  classifyError,
  isTransientError,
} from '../../../src/policies/ErrorClassifier';

class RateLimitError extends Error {}
class ValidationError extends Error {}
class InvoiceRejected extends Error {}

function networkError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 10.0.0.1:443`), { code });
}

function fetchFailed(cause?: unknown): TypeError {
  return new TypeError('fetch failed', cause === undefined ? undefined : { cause });
}

function httpError(status: number, where: 'status' | 'statusCode' | 'response.status'): Error {
  const error = new Error(`request failed with ${status}`);
  return where === 'response.status'
    ? Object.assign(error, { response: { status } })
    : Object.assign(error, { [where]: status });
}

const STATUS_LOCATIONS = ['status', 'statusCode', 'response.status'] as const;

describe('classifyError with the built-in classifier', () => {
  it.each(['ECONNRESET', 'ETIMEDOUT', 'ECONNREFUSED', 'EPIPE', 'EAI_AGAIN'])(
    'retries the network error %s',
    (code) => {
      expect(classifyError(networkError(code))).toEqual({
        retry: true,
        reason: `${code} is transient`,
      });
    },
  );

  it.each([
    ['MariaDB deadlock', 'ER_LOCK_DEADLOCK', 1213],
    ['MariaDB lock wait timeout', 'ER_LOCK_WAIT_TIMEOUT', 1205],
    ['PostgreSQL serialization failure', '40001', undefined],
    ['PostgreSQL deadlock', '40P01', undefined],
  ])('retries a %s that TypeORM reports as a QueryFailedError', (_what, code, errno) => {
    const driverError = Object.assign(new Error('rolled back'), { code, errno });
    const error = new QueryFailedError('INSERT INTO orders VALUES ($1)', [1], driverError);
    expect(classifyError(error)).toEqual({
      retry: true,
      reason: `${code} (a conflict the database rolled back) is transient`,
    });
  });

  it('does not retry a unique violation, which happens again', () => {
    const driverError = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(classifyError(new QueryFailedError('INSERT', [], driverError))).toEqual({
      retry: false,
      reason: '23505 is not transient',
    });
  });

  it('does not retry ENOTFOUND, a host name that does not exist', () => {
    expect(classifyError(networkError('ENOTFOUND'))).toEqual({
      retry: false,
      reason: 'ENOTFOUND is not transient',
    });
  });

  it('retries a network code found deeper on the cause chain', () => {
    const wrapped = new Error('sync failed', {
      cause: new Error('io', { cause: networkError('EPIPE') }),
    });
    expect(classifyError(wrapped)).toEqual({ retry: true, reason: 'EPIPE is transient' });
  });

  it('survives a cause cycle', () => {
    const a: Error & { cause?: unknown } = new Error('a');
    a.cause = new Error('b', { cause: a });
    expect(classifyError(a)).toEqual({ retry: false, reason: 'Error is not transient' });
  });

  it.each(
    TRANSIENT_HTTP_STATUSES.flatMap((status) =>
      STATUS_LOCATIONS.map((where) => [status, where] as const),
    ),
  )('retries HTTP %p found on %s', (status, where) => {
    expect(classifyError(httpError(status, where))).toEqual({
      retry: true,
      reason: `HTTP ${status} is transient`,
    });
  });

  it.each(
    [400, 401, 403, 404, 422].flatMap((status) =>
      STATUS_LOCATIONS.map((where) => [status, where] as const),
    ),
  )('does not retry HTTP %p found on %s', (status, where) => {
    expect(classifyError(httpError(status, where))).toEqual({
      retry: false,
      reason: `HTTP ${status} is not transient`,
    });
  });

  it('reads a status from a thrown plain object, not only from Error instances', () => {
    expect(classifyError({ status: 503 }).retry).toBe(true);
  });

  it('ignores a non-numeric status and looks at the next location', () => {
    const error = Object.assign(new Error('x'), { status: 'failed', response: { status: 502 } });
    expect(classifyError(error)).toEqual({ retry: true, reason: 'HTTP 502 is transient' });
  });

  it('retries undici fetch failed without a cause', () => {
    expect(classifyError(fetchFailed())).toEqual({
      retry: true,
      reason: 'fetch failed is transient',
    });
  });

  it('retries undici fetch failed and names the network code on its cause', () => {
    expect(classifyError(fetchFailed(networkError('ECONNRESET')))).toEqual({
      retry: true,
      reason: 'ECONNRESET is transient',
    });
  });

  it('retries undici fetch failed whose cause is an undici socket error', () => {
    const cause = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect(classifyError(fetchFailed(cause))).toEqual({
      retry: true,
      reason: 'fetch failed is transient',
    });
  });

  it('does not retry undici fetch failed caused by ENOTFOUND', () => {
    expect(classifyError(fetchFailed(networkError('ENOTFOUND')))).toEqual({
      retry: false,
      reason: 'ENOTFOUND is not transient',
    });
  });

  it('retries a step timeout', () => {
    expect(classifyError(new StepTimeoutError('draft', 60_000))).toEqual({
      retry: true,
      reason: 'step timeouts are transient',
    });
  });

  it('retries a RetryableError', () => {
    expect(classifyError(new RetryableError('busy'))).toEqual({
      retry: true,
      reason: 'RetryableError is retried',
    });
  });

  it('does not retry a NonRetryableError even with a transient status', () => {
    const error = Object.assign(new NonRetryableError('stop'), { status: 503 });
    expect(classifyError(error)).toEqual({
      retry: false,
      reason: 'NonRetryableError is never retried',
    });
  });

  it.each<[string, unknown, string]>([
    ['a TypeError', new TypeError('x is not a function'), 'TypeError is not transient'],
    ['a business error', new InvoiceRejected('over budget'), 'InvoiceRejected is not transient'],
    ['a thrown string', 'boom', 'string is not transient'],
    ['a thrown null', null, 'null is not transient'],
    ['an unknown code', networkError('ERR_INVALID_URL'), 'ERR_INVALID_URL is not transient'],
  ])('does not retry %s', (_, error, reason) => {
    expect(classifyError(error)).toEqual({ retry: false, reason });
  });
});

describe('classifyError with rules', () => {
  it('lets abortOn beat everything, including RetryableError and retryOn', () => {
    const rules: ClassificationRules = { retryOn: [RetryableError], abortOn: [RetryableError] };
    expect(classifyError(new RetryableError('x'), rules)).toEqual({
      retry: false,
      reason: 'matched abortOn: RetryableError',
    });
  });

  it('lets abortOn beat a transient network error', () => {
    const rules = { abortOn: [(e: unknown) => (e as { code?: string }).code === 'ECONNRESET'] };
    expect(classifyError(networkError('ECONNRESET'), rules)).toEqual({
      retry: false,
      reason: 'matched abortOn',
    });
  });

  it('lets NonRetryableError beat a matching retryOn', () => {
    expect(classifyError(new NonRetryableError('no'), { retryOn: [Error] })).toEqual({
      retry: false,
      reason: 'NonRetryableError is never retried',
    });
  });

  it('retries only retryOn matches when retryOn is given', () => {
    const rules = { retryOn: [RateLimitError] };
    expect(classifyError(new RateLimitError('slow down'), rules)).toEqual({
      retry: true,
      reason: 'matched retryOn: RateLimitError',
    });
    expect(classifyError(httpError(503, 'status'), rules)).toEqual({
      retry: false,
      reason: 'did not match retryOn',
    });
    expect(classifyError(new RetryableError('x'), rules).retry).toBe(false);
    expect(classifyError(new StepTimeoutError('s', 1), rules).retry).toBe(false);
  });

  it('treats an empty retryOn as "retry nothing"', () => {
    expect(classifyError(networkError('ECONNRESET'), { retryOn: [] }).retry).toBe(false);
  });

  it('matches subclasses of a retryOn class', () => {
    class TooManyRequests extends RateLimitError {}
    expect(classifyError(new TooManyRequests('x'), { retryOn: [RateLimitError] }).retry).toBe(true);
  });

  it('accepts Error itself as a class matcher', () => {
    expect(classifyError(new ValidationError('x'), { abortOn: [Error] })).toEqual({
      retry: false,
      reason: 'matched abortOn: Error',
    });
  });

  it('calls predicates with the error and names named predicates in the reason', () => {
    const seen: unknown[] = [];
    const isNotFound = (e: unknown) => {
      seen.push(e);
      return (e as { code?: string }).code === 'ENOTFOUND';
    };
    const error = networkError('ENOTFOUND');
    expect(classifyError(error, { retryOn: [isNotFound] })).toEqual({
      retry: true,
      reason: 'matched retryOn: isNotFound',
    });
    expect(seen).toEqual([error]);
  });

  it('tells a class from a plain function predicate', () => {
    function isValidation(e: unknown): boolean {
      return e instanceof ValidationError;
    }
    expect(classifyError(new ValidationError('x'), { abortOn: [isValidation] }).retry).toBe(false);
    expect(classifyError(networkError('EPIPE'), { abortOn: [isValidation] }).retry).toBe(true);
  });

  it('composes the built-in classifier with a predicate via isTransientError', () => {
    const rules = {
      retryOn: [isTransientError, (e: unknown) => (e as { code?: string }).code === 'ENOTFOUND'],
    };
    expect(classifyError(networkError('ENOTFOUND'), rules).retry).toBe(true);
    expect(classifyError(httpError(429, 'statusCode'), rules).retry).toBe(true);
    expect(classifyError(new TypeError('bug'), rules).retry).toBe(false);
  });

  it('falls through to the built-in classifier when only abortOn is given', () => {
    const rules = { abortOn: [ValidationError] };
    expect(classifyError(httpError(504, 'status'), rules).retry).toBe(true);
    expect(classifyError(new ValidationError('bad'), rules).retry).toBe(false);
  });
});

describe('transient lists', () => {
  it('are frozen', () => {
    expect(Object.isFrozen(TRANSIENT_NETWORK_CODES)).toBe(true);
    expect(Object.isFrozen(TRANSIENT_HTTP_STATUSES)).toBe(true);
  });
});
