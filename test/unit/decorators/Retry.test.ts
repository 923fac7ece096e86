import { ConfigurationError, Retry, Step, Waymark, Workflow, type RetryOptions } from 'waymark';
import { resolveRetryPolicy } from '../../../src/policies/RetryPolicy';
import { validateClassPolicies } from '../../../src/decorators/validateClassPolicies';
import { METHOD_POLICIES, readMethodPolicies } from '../../../src/decorators/metadata';

/** The ConfigurationError that defining a class throws. */
function define(fn: () => void): ConfigurationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error('expected a ConfigurationError');
}

/** Defines `Quotes.fetchQuote` with `@Step()` and `@Retry(options)`, and returns the error. */
function misuse(options: RetryOptions): ConfigurationError {
  return define(() => {
    class Quotes {
      @Step()
      @Retry(options)
      async fetchQuote(): Promise<void> {}
    }
    return Quotes;
  });
}

/**
 * Removes what the decorators recorded on a class defined with a broken policy. The
 * registry of decorated classes is module-wide: left in place, the class would make every
 * later `Waymark.create` in this file fail.
 */
function forget(target: object): void {
  Reflect.deleteMetadata(METHOD_POLICIES, target);
}

class RateLimitError extends Error {}

describe('@Retry records a validated, frozen policy', () => {
  it('records the resolved policy whether it is written above or below @Step', () => {
    const options: RetryOptions = {
      maxAttempts: 5,
      backoff: { initial: '500ms', factor: 3, max: '1m', jitter: 'equal' },
      retryOn: [RateLimitError],
      maxDelay: '2m',
    };
    class Quotes {
      @Step()
      @Retry(options)
      async below(): Promise<void> {}

      @Retry(options)
      @Step()
      async above(): Promise<void> {}
    }
    const expected = resolveRetryPolicy(options, 'expected');
    for (const method of ['below', 'above']) {
      const policies = readMethodPolicies(Quotes, method);
      expect(policies?.retry).toEqual(expected);
      expect(policies?.step?.name).toBe(method);
      expect(Object.isFrozen(policies?.retry)).toBe(true);
    }
    expect(() => validateClassPolicies(Quotes)).not.toThrow();
  });

  it('@Retry() with no options records the defaults', () => {
    class Quotes {
      @Step()
      @Retry()
      async fetchQuote(): Promise<void> {}
    }
    expect(readMethodPolicies(Quotes, 'fetchQuote')?.retry).toMatchObject({
      maxAttempts: 3,
      backoff: { initialMs: 1_000, factor: 2, maxMs: 300_000, jitter: 'full' },
      respectRetryAfter: true,
      onExhausted: 'throw',
    });
  });
});

describe('@Retry misuse is a ConfigurationError naming the class, method and option', () => {
  it.each<[string, RetryOptions, string]>([
    ['maxAttempts: 0', { maxAttempts: 0 }, 'option "maxAttempts" must not be less than 1 (got 0)'],
    [
      'maxAttempts: 1.5',
      { maxAttempts: 1.5 },
      'option "maxAttempts" must be an integer number (got 1.5)',
    ],
    [
      "maxAttempts: '3'",
      { maxAttempts: '3' as never },
      'option "maxAttempts" must be an integer number (got "3"); ' +
        'option "maxAttempts" must not be less than 1 (got "3")',
    ],
    [
      'backoff.factor below 1',
      { backoff: { factor: 0.5 } },
      'backoff.factor must be a finite number >= 1; got 0.5',
    ],
    [
      'an unknown jitter',
      { backoff: { jitter: 'sometimes' as never } },
      "backoff.jitter must be one of 'none', 'full', 'equal', 'decorrelated'; got 'sometimes'",
    ],
    [
      'a retryOn entry that is neither a class nor a predicate',
      { retryOn: [42 as never] },
      'option "retryOn" must list error classes or predicates (got array of 1)',
    ],
    [
      'an unknown onExhausted',
      { onExhausted: 'later' as never },
      'option "onExhausted" must be one of the following values: throw, intervene (got "later")',
    ],
    ['an unknown option', { retries: 3 } as never, 'unknown option "retries"'],
  ])('%s is refused before the class exists', (_, options, problem) => {
    const error = misuse(options);
    expect(error.message).toBe(`@Retry on Quotes.fetchQuote: ${problem}`);
  });

  it('backoff.initial above backoff.max names both fields', () => {
    const error = misuse({ backoff: { initial: '10s', max: '1s' } });
    expect(error.message).toMatch(/^@Retry on Quotes\.fetchQuote: backoff\.initial \(10s\) /);
    expect(error.message).toMatch(/backoff\.max \(1s\)$/);
  });

  // Fails today: the message reads "@Retry on Quotes.fetchQuote: backoff.initial (10s) must
  // not exceed @Retry on Quotes.fetchQuote: backoff.max (1s)", the location twice.
  it('backoff.initial above backoff.max names the class and method once', () => {
    const error = misuse({ backoff: { initial: '10s', max: '1s' } });
    expect(error.message).toBe(
      '@Retry on Quotes.fetchQuote: backoff.initial (10s) must not exceed backoff.max (1s)',
    );
  });
});

describe('@Retry without @Step is refused when the class is registered', () => {
  it('validateClassPolicies names the class and method', () => {
    class Tools {
      @Retry({ maxAttempts: 2 })
      async lookup(): Promise<void> {}
    }
    try {
      expect(() => validateClassPolicies(Tools)).toThrow(ConfigurationError);
      expect(() => validateClassPolicies(Tools)).toThrow(
        new ConfigurationError('@Retry on Tools.lookup needs @Step on the same method'),
      );
    } finally {
      forget(Tools);
    }
  });

  it('validateClassPolicies says to move a policy written on a @Workflow to its steps', () => {
    class Agent {
      @Workflow({ name: 'retry-decorator-test.agent' })
      @Retry()
      async run(): Promise<void> {}
    }
    try {
      expect(() => validateClassPolicies(Agent)).toThrow(
        new ConfigurationError(
          '@Retry on Agent.run needs @Step on the same method ' +
            '(it is a @Workflow; put the policy on the steps it calls)',
        ),
      );
    } finally {
      forget(Agent);
    }
  });

  it('Waymark.create refuses to open while a loaded class has @Retry without @Step', async () => {
    class Tools {
      @Retry({ maxAttempts: 2 })
      async lookup(): Promise<void> {}
    }
    try {
      await expect(Waymark.create({ database: 'sqlite::memory:' })).rejects.toThrow(
        new ConfigurationError('@Retry on Tools.lookup needs @Step on the same method'),
      );
    } finally {
      forget(Tools);
    }
    // With the broken class forgotten, the runtime opens again.
    const runtime = await Waymark.create({ database: 'sqlite::memory:' });
    await runtime.close();
  });
});
