import { ConfigurationError } from '../errors/ConfigurationError';
import { resolveRetryPolicy, type RetryOptions } from '../policies/RetryPolicy';
import type { IdempotentMetadata } from './metadata';
import type { StepOptions } from './Step';
import { stepMetadataOf } from './stepMetadata';
import { compileStepPlan, type StepPlan } from './StepPlan';
import { validateOptions } from './validation/validateOptions';

/**
 * Options of `ctx.step(name, fn, options)`: the `@Step` options (but its name, given first),
 * `retry` (the `@Retry` options) and the `@Idempotent` options — with `key` a string, as an
 * inline step has no arguments to derive it from.
 */
export interface InlineStepOptions extends Omit<StepOptions, 'name'> {
  /** Retries of the step's attempts, as `@Retry` configures them. */
  retry?: RetryOptions;
  /** The step's idempotency key (`ctx.idempotencyKey`); default `${runId}:${seq}`. */
  key?: string;
  /** `'run'` (default): `key` is unique within the run; `'global'`: across all runs. */
  scope?: 'run' | 'global';
}

/** The plan of an inline step `name` with `options`, checked as a decorated step's would be. */
export function inlineStepPlan(name: unknown, options: InlineStepOptions = {}): StepPlan {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new ConfigurationError(
      `ctx.step(): the first argument names the step in the history; got ${typeof name === 'string' ? 'an empty string' : typeof name}`,
    );
  }
  const where = `ctx.step("${name}")`;
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(`${where}: options must be an object, got ${typeof options}`);
  }
  const { retry, key, scope, ...step } = options;
  const metadata = stepMetadataOf(step, name, where);
  const policy =
    retry === undefined
      ? undefined
      : resolveRetryPolicy(validateOptions('retry', retry, `${where}: retry`), `${where}: retry`);
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    throw new ConfigurationError(`${where}: key must be a non-empty string`);
  }
  if (scope !== undefined && scope !== 'run' && scope !== 'global') {
    throw new ConfigurationError(`${where}: scope must be 'run' or 'global', got ${String(scope)}`);
  }
  if (scope === 'global' && key === undefined) {
    throw new ConfigurationError(`${where}: scope 'global' needs a key shared by the runs`);
  }
  const idempotent: IdempotentMetadata | undefined =
    key === undefined ? undefined : { key: () => key, scope: scope ?? 'run' };
  if (metadata.transactional && metadata.atMostOnce) {
    throw new ConfigurationError(
      `${where}: transactional and atMostOnce exclude each other (a transactional step is exactly-once already)`,
    );
  }
  if (metadata.transactional && idempotent?.scope === 'global') {
    throw new ConfigurationError(
      `${where}: a transactional step cannot have a global key (its writes commit with its checkpoint already)`,
    );
  }
  return compileStepPlan(name, 'inline', metadata, policy, idempotent);
}
