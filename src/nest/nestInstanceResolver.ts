import type { ModuleRef } from '@nestjs/core';
import {
  InvalidClassScopeException,
  UnknownElementException,
} from '@nestjs/core/errors/exceptions';
import { ConfigurationError } from '../errors/ConfigurationError';
import type { InstanceResolver } from '../runtime/RuntimeOptions';

/**
 * The instance a run executes on, from Nest: `moduleRef.get(Class, { strict: false })`, the
 * singleton Nest built with its constructor dependencies, in whichever module it is
 * registered. A class Nest does not know is handed to `fallback` (the runtime's tsyringe
 * container), so workflow classes written for tsyringe keep working in a Nest app; when
 * that cannot build it either, the error says to register the class as a Nest provider.
 *
 * @example
 * ```ts
 * const runtime = await Waymark.create({
 *   database: 'sqlite:./waymark.db',
 *   resolveInstance: nestInstanceResolver(moduleRef, (Class) => container.resolve(Class)),
 * });
 * ```
 */
export function nestInstanceResolver(
  moduleRef: ModuleRef,
  fallback: InstanceResolver,
): InstanceResolver {
  return (Class) => {
    try {
      return moduleRef.get<object>(Class, { strict: false });
    } catch (error) {
      if (error instanceof InvalidClassScopeException) {
        throw new ConfigurationError(
          `${Class.name} is a request-scoped or transient Nest provider (or depends on one); ` +
            'a workflow class must be a singleton: a run resumed by a worker has no request',
          { cause: error },
        );
      }
      if (!(error instanceof UnknownElementException)) throw error;
    }
    try {
      return fallback(Class);
    } catch (error) {
      throw new ConfigurationError(
        `${Class.name} is not a provider of this Nest application, so waymark cannot get the ` +
          `instance to run its workflow on: add ${Class.name} to the providers of a module ` +
          `(tsyringe could not build it either: ${(error as Error).message})`,
        { cause: error },
      );
    }
  };
}
