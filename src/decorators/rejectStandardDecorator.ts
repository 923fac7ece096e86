import { ConfigurationError } from '../errors/ConfigurationError';

/** What a TC39 (standard) decorator receives as its second argument, as far as we read it. */
interface StandardDecoratorContext {
  readonly kind: string;
  readonly name?: unknown;
}

/**
 * Throws a {@link ConfigurationError} naming the compiler settings when a waymark decorator
 * was called as a TC39 (standard) decorator, `(value, context)`: the code was compiled
 * without `experimentalDecorators` (TypeScript 5+ then emits standard decorators), and the
 * decorator would otherwise fail with a message about static methods that points nowhere.
 *
 * @example
 * ```ts
 * rejectStandardDecorator('@Step', propertyKey); // before reading (target, key, descriptor)
 * ```
 */
export function rejectStandardDecorator(decorator: string, second: unknown): void {
  if (!isStandardDecoratorContext(second)) return;
  const on = typeof second.name === 'string' ? ` on ${second.name}` : '';
  throw new ConfigurationError(
    `${decorator}${on} was called as a standard (TC39) ${second.kind} decorator: the code was ` +
      'compiled without "experimentalDecorators". waymark, like tsyringe and TypeORM, needs ' +
      'TypeScript\'s legacy decorators: set "experimentalDecorators": true and ' +
      '"emitDecoratorMetadata": true in the compilerOptions of tsconfig.json (swc: ' +
      'jsc.parser.decorators, jsc.transform.legacyDecorator and jsc.transform.decoratorMetadata)',
  );
}

function isStandardDecoratorContext(value: unknown): value is StandardDecoratorContext {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === 'string'
  );
}
