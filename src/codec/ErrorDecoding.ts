import { findErrorClass } from './ErrorClassRegistry';
import type { NodeReader } from './NodeReader';
import { hidesErrorMethod } from './ValueLimits';
import type { TaggedNode } from './ValueTags';

// Stored in fields of their own, never among `props`.
const OWN_FIELDS = new Set(['message', 'stack', 'cause']);

type BuiltinErrorClass = new (message?: string) => Error;

/** Every error this copy of waymark rebuilt from the store (weakly: they are collected as usual). */
const readBack = new WeakSet<object>();

/**
 * True when `error` was rebuilt from the store by {@link decodeError}: a recorded error
 * replayed, not one thrown in this process just now.
 */
export function isReadBackError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && readBack.has(error);
}

const BUILTIN_ERRORS = new Map<string, BuiltinErrorClass>(
  [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError].map((cls) => [
    cls.name,
    cls,
  ]),
);

/**
 * Rebuilds an error from its `{"$wm":"Error",...}` node. Built-in classes are constructed
 * natively; a class registered with `registerErrorClasses` is created from its prototype
 * without calling its constructor; any other name reads back as a plain `Error` with that
 * `name`. `message`, `stack`, `cause` and `errors` are restored as non-enumerable own
 * properties, like native ones; the error's other stored properties as enumerable ones.
 */
export function decodeError(node: TaggedNode, decoder: NodeReader): Error {
  const name = decoder.expectString(node.name);
  const className = node.class === undefined ? name : decoder.expectString(node.class);
  const message = node.message === undefined ? undefined : decoder.expectString(node.message);
  const errors =
    node.errors === undefined
      ? undefined
      : decoder.expectArray(decoder.decodeAt('errors', decoder.expectArray(node.errors)));
  const error = createError(className, message, errors);

  // A natively constructed error captured a stack of this read; the stored one is the truth.
  if (node.stack === undefined) delete error.stack;
  else setHidden(error, 'stack', decoder.expectString(node.stack));
  if (Object.hasOwn(node, 'cause'))
    setHidden(error, 'cause', decoder.decodeAt('cause', node.cause));
  if (errors !== undefined && !Object.hasOwn(error, 'errors')) setHidden(error, 'errors', errors);
  if (Object.hasOwn(node, 'code')) {
    const code = decoder.decodeAt('code', node.code);
    if (!Object.is(readSafely(error, 'code'), code)) setHidden(error, 'code', code);
  }
  if (node.props !== undefined) {
    const props = decoder.expectObject(node.props);
    for (const key of Object.keys(props)) {
      if (OWN_FIELDS.has(key))
        throw decoder.fail(`${key} is stored apart from the properties`, key);
      if (hidesErrorMethod(error, key)) {
        throw decoder.fail(`a property named ${key} would hide the error's ${key}() method`, key);
      }
      const value = decoder.decodeAt(key, props[key]);
      Object.defineProperty(error, key, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
  }
  if (readSafely(error, 'name') !== name) setHidden(error, 'name', name);
  readBack.add(error);
  return error;
}

function createError(className: string, message?: string, errors?: unknown[]): Error {
  if (className === 'AggregateError') return new AggregateError(errors ?? [], message);
  const builtin = BUILTIN_ERRORS.get(className);
  if (builtin !== undefined) return new builtin(message);
  const registered = findErrorClass(className);
  if (registered === undefined) return new Error(message);
  const error = Object.create(registered.prototype as object) as Error;
  if (message !== undefined) setHidden(error, 'message', message);
  return error;
}

function setHidden(error: Error, key: string, value: unknown): void {
  Object.defineProperty(error, key, {
    value,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

// A registered class may compute `code` or `name` in a getter that expects constructor-set
// fields, which an error created from its prototype does not have.
function readSafely(error: Error, key: string): unknown {
  try {
    return (error as unknown as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}
