import { NonRetryableError, isNonRetryableError } from '../../../src/errors/NonRetryableError';
import { RetryableError, isRetryableError } from '../../../src/errors/RetryableError';
import { StepTimeoutError, isStepTimeoutError } from '../../../src/errors/StepTimeoutError';
import { WaymarkError, isWaymarkError } from '../../../src/errors/WaymarkError';

describe('policy errors', () => {
  it('RetryableError carries its code, hint and cause', () => {
    const cause = new Error('429');
    const error = new RetryableError('rate limited', { retryAfter: '30s', cause });
    expect(error).toBeInstanceOf(WaymarkError);
    expect(error.name).toBe('RetryableError');
    expect(error.code).toBe('RETRYABLE');
    expect(error.retryAfter).toBe('30s');
    expect(error.cause).toBe(cause);
    expect(new RetryableError('x').retryAfter).toBeUndefined();
    expect(isWaymarkError(error, 'RETRYABLE')).toBe(true);
  });

  it('NonRetryableError carries its code and cause', () => {
    const cause = new Error('bad sku');
    const error = new NonRetryableError('invalid order', { cause });
    expect(error.name).toBe('NonRetryableError');
    expect(error.code).toBe('NON_RETRYABLE');
    expect(error.cause).toBe(cause);
    expect(new NonRetryableError('x').cause).toBeUndefined();
  });

  it('StepTimeoutError names the step and the timeout in its message', () => {
    const error = new StepTimeoutError('draft', 60_000);
    expect(error.message).toBe('step "draft" timed out after 1m');
    expect(new StepTimeoutError('submit', 1_500).message).toBe(
      'step "submit" timed out after 1.5s',
    );
    expect(error.code).toBe('STEP_TIMEOUT');
    expect(error.step).toBe('draft');
    expect(error.timeoutMs).toBe(60_000);
  });

  it('type guards recognise only their own class', () => {
    const errors = [
      new RetryableError('a'),
      new NonRetryableError('b'),
      new StepTimeoutError('c', 1),
      new Error('d'),
    ];
    expect(errors.map(isRetryableError)).toEqual([true, false, false, false]);
    expect(errors.map(isNonRetryableError)).toEqual([false, true, false, false]);
    expect(errors.map(isStepTimeoutError)).toEqual([false, false, true, false]);
  });
});
