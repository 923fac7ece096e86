import {
  isLeaseLostError,
  isRetryableError,
  isWaymarkError,
  LeaseLostError,
  RetryableError,
} from 'waymark';

type ErrorsModule = typeof import('../../../src/errors');

/** A second copy of waymark's errors, as a bundled dependency would load it. */
function secondCopy(): ErrorsModule {
  let copy: ErrorsModule | undefined;
  jest.isolateModules(() => {
    copy = jest.requireActual<ErrorsModule>('../../../src/errors');
  });
  return copy!;
}

describe('error type guards', () => {
  it('classify errors thrown by another copy of waymark in the same application', () => {
    const other = secondCopy();
    expect(other.LeaseLostError).not.toBe(LeaseLostError);
    const foreign = new other.LeaseLostError('run-1', 3);
    expect(foreign instanceof LeaseLostError).toBe(false);
    expect(isLeaseLostError(foreign)).toBe(true);
    expect(isWaymarkError(foreign, 'LEASE_LOST')).toBe(true);
    expect(other.isLeaseLostError(new LeaseLostError('run-1', 3))).toBe(true);
  });

  it('recognise user subclasses and reject look-alikes', () => {
    class RateLimitError extends RetryableError {}
    expect(isRetryableError(new RateLimitError('slow down'))).toBe(true);
    const lookAlike = Object.assign(new Error('x'), { name: 'RetryableError', code: 'RETRYABLE' });
    expect(isRetryableError(lookAlike)).toBe(false);
    expect(isWaymarkError(lookAlike)).toBe(false);
    expect(isLeaseLostError(new RateLimitError('x'))).toBe(false);
  });
});
