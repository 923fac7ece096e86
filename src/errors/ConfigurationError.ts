import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * A decorator, option or runtime setting is wrong. Thrown when a class is registered or a
 * runtime is created, never in the middle of a run.
 */
export class ConfigurationError extends WaymarkError {
  declare readonly code: 'CONFIGURATION' | 'INVALID_ARGUMENT';

  /** @param code - for subclasses only (`INVALID_ARGUMENT`); default `CONFIGURATION`. */
  constructor(
    message: string,
    options?: { cause?: unknown },
    code: 'CONFIGURATION' | 'INVALID_ARGUMENT' = 'CONFIGURATION',
  ) {
    super(code, message, options);
  }
}

brand(ConfigurationError, 'ConfigurationError');

/** True when `error` is a {@link ConfigurationError}. */
export function isConfigurationError(error: unknown): error is ConfigurationError {
  return hasBrand(error, 'ConfigurationError');
}
