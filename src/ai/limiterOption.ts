import { InvalidArgumentError } from '../errors/InvalidArgumentError';

/**
 * A limiter name given to a `waymark/ai` wrapper, checked as `@Step({ limiter })` checks it
 * (1–200 characters without spaces); whether the runtime declares it is checked when a call
 * passes through it, naming the limiter.
 */
export function limiterOption(name: unknown, where: string): string | undefined {
  if (name === undefined) return undefined;
  if (typeof name !== 'string' || !/^\S{1,200}$/.test(name)) {
    throw new InvalidArgumentError(where, 'must be 1–200 characters without spaces');
  }
  return name;
}
