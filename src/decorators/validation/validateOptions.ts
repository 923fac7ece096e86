import type { ValidationError } from 'class-validator';
import { ConfigurationError } from '../../errors/ConfigurationError';
import type * as Schemas from './optionSchemas';

type SchemaName = keyof typeof Schemas.optionSchemas;
type OptionsOf<K extends SchemaName> = InstanceType<(typeof Schemas.optionSchemas)[K]>;

let schemas: typeof Schemas | undefined;

/**
 * The schemas and class-validator, loaded when a decorator first has options to check, so
 * `require('waymark')` stays light (class-validator costs a few hundred ms to load).
 */
function loadSchemas(): typeof Schemas {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
  return (schemas ??= require('./optionSchemas') as typeof Schemas);
}

/**
 * Checks a decorator's options against its class-validator schema and returns them typed.
 * Unknown keys are errors too: a typo like `timout` must not be silently ignored.
 */
export function validateOptions<K extends SchemaName>(
  schema: K,
  options: unknown,
  where: string,
): OptionsOf<K> {
  if (options === undefined) return {} as OptionsOf<K>;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new ConfigurationError(`${where}: options must be an object, got ${describe(options)}`);
  }
  const { optionSchemas, schemaErrors } = loadSchemas();
  const Schema = optionSchemas[schema] as new () => OptionsOf<K>;
  const candidate = Object.assign(new Schema(), options);
  const errors = schemaErrors(candidate);
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
