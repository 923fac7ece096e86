import 'reflect-metadata';
import { ConfigurationError } from '../errors/ConfigurationError';
import { isWaymarkError } from '../errors/WaymarkError';
import type { InstanceResolver } from './RuntimeOptions';

const TYPE_INFO_UNKNOWN = /TypeInfo not known for "([^"]*)"/;

/** Any class: only its name and prototype are read. */
type AnyClass = abstract new (...args: never[]) => object;

/**
 * Wraps an instance resolver so that tsyringe's bare `TypeInfo not known for "X"` reaches the
 * user as a {@link ConfigurationError} that says what to change.
 *
 * @example
 * ```ts
 * const resolveInstance = explainingResolution((Class) => container.resolve(Class));
 * ```
 */
export function explainingResolution(resolve: InstanceResolver): InstanceResolver {
  return (Class) => {
    try {
      return resolve(Class);
    } catch (error) {
      throw explainResolutionError(Class, error);
    }
  };
}

/**
 * Translates tsyringe's `TypeInfo not known for "X"` (X has constructor parameters tsyringe
 * knows nothing about) into a {@link ConfigurationError} naming the fix; any other error is
 * returned as it is. When `Class`'s decorated methods carry `design:*` metadata the compiler
 * did emit metadata, so what X lacks is `@injectable()`; otherwise it is
 * `emitDecoratorMetadata` (or, for compilers that cannot emit it, `@inject` on each parameter).
 *
 * @example
 * ```ts
 * try { container.resolve(SupportAgent); } catch (e) { throw explainResolutionError(SupportAgent, e); }
 * ```
 */
export function explainResolutionError(Class: AnyClass, error: unknown): unknown {
  if (!(error instanceof Error) || isWaymarkError(error)) return error;
  const unknown = TYPE_INFO_UNKNOWN.exec(error.message)?.[1];
  if (unknown === undefined) return error;
  const building = unknown === Class.name ? unknown : `${Class.name} (through ${unknown})`;
  const why = emitsDecoratorMetadata(Class)
    ? `${unknown} has constructor parameters but no @injectable(): decorate it with ` +
      "@injectable() from tsyringe, or register it in the runtime's container"
    : 'the code was compiled without decorator metadata, so tsyringe cannot see the types of ' +
      `${unknown}'s constructor parameters. Set "emitDecoratorMetadata": true beside ` +
      '"experimentalDecorators": true in tsconfig.json (swc: jsc.transform.decoratorMetadata); ' +
      'compilers that cannot emit it (tsx, esbuild) need a token on every constructor ' +
      'parameter instead: constructor(@inject(WorkflowContext) private readonly ctx: WorkflowContext)';
  return new ConfigurationError(
    `cannot build ${building} to run its workflow (tsyringe: TypeInfo not known for "${unknown}"): ${why}`,
    { cause: error },
  );
}

/** Whether a decorated method of `Class` carries the `design:*` metadata tsc emits with the flag. */
function emitsDecoratorMetadata(Class: AnyClass): boolean {
  const prototype = Class.prototype as object;
  return Object.getOwnPropertyNames(prototype).some((name) =>
    Reflect.hasOwnMetadata('design:returntype', prototype, name),
  );
}
