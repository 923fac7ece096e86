import { ConfigurationError } from '../errors/ConfigurationError';
import type { ErrorClass } from '../model/ErrorClass';

export type { ErrorClass };

const registered = new Map<string, ErrorClass>();

/**
 * Lets stored errors of your own classes read back as instances of those classes, so
 * `instanceof` checks still work when a failed step is replayed from the store. Without
 * registration such an error reads back as a plain `Error` whose `name` is the class name.
 *
 * A class is registered under its `prototype.name` when the prototype defines one, else
 * under its class name. The constructor is never called on read: waymark creates the object
 * from the prototype and restores its stored fields. Registering the same class again is
 * harmless; two different classes with one name are a {@link ConfigurationError}.
 *
 * @example
 * ```ts
 * class RateLimitError extends Error {
 *   constructor(readonly retryAfter: number) {
 *     super(`rate limited, retry in ${retryAfter}s`);
 *     this.name = 'RateLimitError';
 *   }
 * }
 * registerErrorClasses(RateLimitError);
 * // After a replay, a step that failed with it still fails with a RateLimitError:
 * try {
 *   await agent.procure(request);
 * } catch (e) {
 *   if (e instanceof RateLimitError) await sleep(e.retryAfter * 1000);
 * }
 * ```
 */
export function registerErrorClasses(...classes: ErrorClass[]): void {
  // Check the whole list before registering any of it, so a failed call changes nothing.
  const added = new Map<string, ErrorClass>();
  for (const cls of classes) {
    if (typeof cls !== 'function' || !(cls === Error || cls.prototype instanceof Error)) {
      throw new ConfigurationError(
        `registerErrorClasses: ${describe(cls)} is not a class that extends Error`,
      );
    }
    const name = errorClassName(cls);
    if (name === '') {
      throw new ConfigurationError(
        'registerErrorClasses: an anonymous class cannot be registered; give it a name',
      );
    }
    const existing = added.get(name) ?? registered.get(name);
    if (existing !== undefined && existing !== cls) {
      throw new ConfigurationError(
        `registerErrorClasses: ${describe(existing)} and ${describe(cls)} are two different ` +
          `classes both named "${name}"; rename one or give it its own prototype.name`,
      );
    }
    added.set(name, cls);
  }
  for (const [name, cls] of added) registered.set(name, cls);
}

/** The registered error class stored under `name`, if any. */
export function findErrorClass(name: string): ErrorClass | undefined {
  return registered.get(name);
}

/**
 * The name an error class is registered and stored under: its prototype's own `name` when
 * that is a string, else the class name. `''` for anything else.
 */
export function errorClassName(cls: unknown): string {
  if (typeof cls !== 'function') return '';
  const prototype: unknown = cls.prototype;
  if (typeof prototype === 'object' && prototype !== null) {
    const own: unknown = Object.getOwnPropertyDescriptor(prototype, 'name')?.value;
    if (typeof own === 'string') return own;
  }
  return cls.name;
}

function describe(cls: unknown): string {
  if (typeof cls !== 'function') return String(cls);
  const key = errorClassName(cls);
  const className = cls.name === '' ? '(anonymous)' : cls.name;
  return key === cls.name ? `class ${className}` : `class ${className} (prototype.name "${key}")`;
}
