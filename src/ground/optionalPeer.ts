import { ConfigurationError } from '../errors/ConfigurationError';
import { isModuleNotFound } from '../errors/moduleNotFound';

/**
 * Loads the optional peer package `name` for `user` (an adapter, as its caller writes it:
 * `'durableModel()'`), or, when it is not installed, `alternative` (a package that exports the
 * same). Called when the adapter is made, not when a run first needs the package: a missing
 * package is then a `ConfigurationError` naming what to install, before anything is recorded.
 *
 * @example
 * ```ts
 * const otel = loadOptionalPeer<typeof import('@opentelemetry/api')>('traceRuns()', '@opentelemetry/api');
 * ```
 */
export function loadOptionalPeer<T>(user: string, name: string, alternative?: string): T {
  try {
    return requirePackage<T>(name);
  } catch (error) {
    if (!isMissing(error, name)) throw brokenInstall(user, name, error);
    if (alternative === undefined) {
      throw new ConfigurationError(
        `${user} needs the package "${name}" (an optional peer dependency of waymark), ` +
          `which is not installed: npm install ${name}`,
        { cause: error },
      );
    }
    try {
      return requirePackage<T>(alternative);
    } catch (again) {
      if (!isMissing(again, alternative)) throw brokenInstall(user, alternative, again);
      throw new ConfigurationError(
        `${user} needs the package "${name}" (an optional peer dependency of waymark), or ` +
          `"${alternative}"; neither is installed: npm install ${name}`,
        { cause: error },
      );
    }
  }
}

function requirePackage<T>(name: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(name) as T;
}

/** `name` itself is missing, not a module it imports (a broken install names that one). */
function isMissing(error: unknown, name: string): boolean {
  return isModuleNotFound(error) && messageOf(error).startsWith(`Cannot find module '${name}'`);
}

/** The package was found but does not load: a module it imports is missing, or it threw. */
function brokenInstall(user: string, name: string, error: unknown): unknown {
  if (!isModuleNotFound(error)) return error;
  const reason = messageOf(error).split('\n', 1)[0];
  return new ConfigurationError(
    `${user} could not load the package "${name}": ${reason}; reinstall it: npm install ${name}`,
    { cause: error },
  );
}

function messageOf(error: unknown): string {
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' ? message : '';
}
