import { ConfigurationError } from '../errors/ConfigurationError';
import { parseDuration } from '../ground/Duration';
import type { StepMetadata } from './metadata';
import type { StepOptions } from './Step';
import { validateOptions } from './validation/validateOptions';

/**
 * What a step's options say, checked: `@Step`'s and `ctx.step`'s alike. `where` names the
 * step in errors (`@Step on Class.method`, `ctx.step("search")`).
 */
export function stepMetadataOf(
  options: StepOptions | undefined,
  defaultName: string,
  where: string,
): StepMetadata {
  const opts = validateOptions('step', options, where);
  if (opts.onUnknown !== undefined && !opts.atMostOnce) {
    throw new ConfigurationError(`${where}: onUnknown only applies with atMostOnce: true`);
  }
  return {
    name: opts.name ?? defaultName,
    timeoutMs:
      opts.timeout === undefined ? undefined : parseDuration(opts.timeout, `${where}: timeout`),
    atMostOnce: opts.atMostOnce ?? false,
    onUnknown: opts.onUnknown ?? 'throw',
    transactional: opts.transactional ?? false,
    ...(opts.limiter === undefined ? {} : { limiter: opts.limiter }),
  };
}
