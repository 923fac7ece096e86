import type { AnyClass } from './metadata';
import { ConfigurationError } from '../errors/ConfigurationError';
import { rejectStandardDecorator } from './rejectStandardDecorator';

/** The class and method a method decorator was applied to, checked to be a plain method. */
export interface DecoratedMethod {
  readonly declaringClass: AnyClass;
  readonly methodName: string;
  readonly where: string;
  readonly original: (...args: unknown[]) => unknown;
}

/** Resolves what a method decorator received, rejecting statics, accessors and symbols. */
export function decoratedMethod(
  decorator: string,
  target: object,
  propertyKey: string | symbol,
  descriptor: PropertyDescriptor | undefined,
): DecoratedMethod {
  rejectStandardDecorator(decorator, propertyKey);
  const isStatic = typeof target === 'function';
  const declaringClass = (isStatic ? target : target.constructor) as AnyClass;
  const methodName = String(propertyKey);
  const where = `${decorator} on ${declaringClass.name}.${methodName}`;
  if (typeof propertyKey === 'symbol') {
    throw new ConfigurationError(
      `${where}: methods named by a symbol cannot be workflows or steps`,
    );
  }
  if (isStatic) {
    throw new ConfigurationError(`${where}: decorate an instance method, not a static one`);
  }
  if (!descriptor || typeof descriptor.value !== 'function') {
    throw new ConfigurationError(
      `${where}: only methods can be decorated (not properties or accessors)`,
    );
  }
  return {
    declaringClass,
    methodName,
    where,
    original: descriptor.value as (...args: unknown[]) => unknown,
  };
}
