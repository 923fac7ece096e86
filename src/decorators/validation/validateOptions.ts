import { validateSync, type ValidationError } from 'class-validator';
import { ConfigurationError } from '../../errors/ConfigurationError';

/**
 * Checks a decorator's options against a class-validator schema and returns them typed.
 * Unknown keys are errors too: a typo like `timout` must not be silently ignored.
 */
export function validateOptions<T extends object>(
  Schema: new () => T,
  options: unknown,
  where: string,
): T {
  if (options === undefined) return new Schema();
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new ConfigurationError(`${where}: options must be an object, got ${describe(options)}`);
  }
  const candidate = Object.assign(new Schema(), options);
  const errors = validateSync(candidate, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: true },
  });
  if (errors.length > 0) {
    throw new ConfigurationError(`${where}: ${errors.flatMap((e) => explain(e, '')).join('; ')}`);
  }
  return candidate;
}

function explain(error: ValidationError, prefix: string): string[] {
  const field = `${prefix}${error.property}`;
  const own = Object.values(error.constraints ?? {}).map((message) =>
    message.includes('should not exist')
      ? `unknown option "${field}"`
      : `option "${field}" ${message.replace(/^\S+\s/, '')} (got ${describe(error.value)})`,
  );
  return [...own, ...(error.children ?? []).flatMap((child) => explain(child, `${field}.`))];
}

/** A short, safe rendering of a bad value for messages. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return `function ${value.name || '(anonymous)'}`;
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `array of ${value.length}`;
  return value.constructor && value.constructor !== Object ? value.constructor.name : 'object';
}
