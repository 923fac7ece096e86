import { types } from 'node:util';
import { SerializationError } from '../errors/SerializationError';
import { errorClassName } from './ErrorClassRegistry';
import { describeThrown } from './describeNode';
import { hidesErrorMethod, MAX_DEPTH } from './ValueLimits';
import { builtinTag, describeInstance, hasMethods } from './ObjectKind';
import {
  entrySegment,
  formatPath,
  mapKeySegment,
  mapValueSegment,
  type PathSegment,
} from './ValuePath';
import { HOLE_NODE, TAG_KEY, tagged, UNDEFINED_NODE } from './ValueTags';

// Stored in fields of their own and restored non-enumerable, like native ones. An own
// enumerable `name` (set by `this.name = ...`) stays among the other properties.
const ERROR_FIELDS = new Set(['message', 'stack', 'cause']);

/**
 * Turns one value into a tree that `JSON.stringify` writes losslessly. Only what JSON cannot
 * hold is replaced by a tagged node; a value that needs no tag is returned as is, so it is
 * written exactly as `JSON.stringify(value)` would. Use one encoder per value.
 *
 * Whatever goes wrong is a `SerializationError` naming the path: a value nested deeper than
 * {@link MAX_DEPTH} levels, a getter or a Proxy trap that throws (reading `error.name`
 * included), a revoked Proxy.
 */
export class ValueEncoder {
  private readonly segments: PathSegment[] = [];
  /**
   * The objects on the path being encoded, each with the depth it was entered at: kept only
   * by the second pass of a value the first could not encode, to tell a circular reference
   * (and where it points) from a value that is merely too deep. Without it a cycle runs the
   * first pass down to the depth limit, or out of stack. Every checkpoint's value goes
   * through here, and a Map entry set and deleted for each of its objects was about 4% of
   * what a step allocated.
   */
  private ancestors: Map<object, number> | undefined;

  /** @param root - the name the value's path starts with in error messages, e.g. `result` */
  constructor(private readonly root: string) {}

  /** The JSON-ready tree of `value`; throws `SerializationError` naming the path. */
  encode(value: unknown): unknown {
    try {
      return this.encodeValue(value);
    } catch (error) {
      if (this.ancestors) throw error;
      // The second pass throws the same error, or names the cycle that caused it.
      const exact = new ValueEncoder(this.root);
      exact.ancestors = new Map();
      return exact.encodeValue(value);
    }
  }

  private encodeValue(value: unknown): unknown {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value;
      case 'number':
        return Number.isFinite(value) && !Object.is(value, -0)
          ? value
          : tagged('Number', Object.is(value, -0) ? '-0' : String(value));
      case 'bigint':
        return tagged('BigInt', value.toString());
      case 'undefined':
        return UNDEFINED_NODE;
      case 'function':
        throw this.fail('a function cannot be stored');
      case 'symbol':
        throw this.fail('a symbol cannot be stored');
      default:
        return value === null ? null : this.encodeGuarded(value as object);
    }
  }

  /** Any exception but ours, from a getter or a Proxy trap, becomes one naming the path. */
  private encodeGuarded(value: object): unknown {
    if (this.segments.length >= MAX_DEPTH) {
      throw this.fail(`nested more than ${MAX_DEPTH} levels deep`);
    }
    try {
      return this.encodeObject(value);
    } catch (error) {
      if (error instanceof SerializationError) throw error;
      throw this.fail(`reading it threw ${describeThrown(error)}`);
    }
  }

  private encodeObject(value: object): unknown {
    const { ancestors } = this;
    if (ancestors === undefined) return this.encodeByKind(value);
    const enteredAt = ancestors.get(value);
    if (enteredAt !== undefined) {
      const target = formatPath(this.root, this.segments.slice(0, enteredAt));
      throw this.fail(`circular reference back to ${target}`);
    }
    ancestors.set(value, this.segments.length);
    const encoded = this.encodeByKind(value);
    ancestors.delete(value);
    return encoded;
  }

  private encodeByKind(value: object): unknown {
    if (Array.isArray(value)) return this.encodeArray(value);
    const proto = Object.getPrototypeOf(value) as object | null;
    if (proto === Object.prototype || proto === null) return this.encodeEntries(value);
    if (Buffer.isBuffer(value)) return tagged('Buffer', value.toString('base64'));
    const tag = builtinTag(value, proto);
    if (tag !== undefined) return this.encodeBuiltin(tag, value);
    if (value instanceof Error || types.isNativeError(value)) return this.encodeError(value);
    if (types.isPromise(value)) throw this.fail('a Promise cannot be stored (await it first)');
    if (types.isWeakMap(value) || types.isWeakSet(value)) {
      throw this.fail(`a ${types.isWeakMap(value) ? 'WeakMap' : 'WeakSet'} cannot be stored`);
    }
    if (hasMethods(proto)) throw this.fail(describeInstance(proto));
    return this.encodeEntries(value);
  }

  private encodeBuiltin(tag: string, value: object): unknown {
    switch (tag) {
      case 'Date': {
        const time = (value as Date).getTime();
        return tagged(tag, Number.isNaN(time) ? null : (value as Date).toISOString());
      }
      case 'Map':
        return this.encodeMap(value as Map<unknown, unknown>);
      case 'Set':
        return this.encodeSet(value as Set<unknown>);
      case 'RegExp':
        return tagged(tag, [(value as RegExp).source, (value as RegExp).flags]);
      default: {
        const view = value as ArrayBufferView;
        const bytes = Buffer.from(view.buffer, view.byteOffset, view.byteLength);
        return tagged(tag, bytes.toString('base64'));
      }
    }
  }

  private encodeArray(array: readonly unknown[]): unknown {
    let copy: unknown[] | undefined;
    for (let i = 0; i < array.length; i++) {
      const present = i in array;
      this.segments.push(i);
      const item = present ? this.encodeValue(array[i]) : HOLE_NODE;
      this.segments.pop();
      if (copy === undefined) {
        if (present && item === array[i]) continue;
        copy = array.slice(0, i);
      }
      copy.push(item);
    }
    return copy ?? array;
  }

  private encodeEntries(object: object): unknown {
    const keys = Object.keys(object);
    let copy: Record<string, unknown> | undefined;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      // Pushed before the read, so a throwing getter is reported at its own key.
      this.segments.push(key);
      const value: unknown = (object as Record<string, unknown>)[key];
      const encoded = this.encodeValue(value);
      this.segments.pop();
      if (copy === undefined) {
        if (encoded === value) continue;
        copy = copyKeys(object, keys, k);
      }
      setKey(copy, key, encoded);
    }
    const result = copy ?? object;
    return Object.prototype.propertyIsEnumerable.call(object, TAG_KEY)
      ? tagged('Object', result)
      : result;
  }

  private encodeMap(map: ReadonlyMap<unknown, unknown>): unknown {
    const entries: unknown[] = [];
    for (const [key, value] of map) {
      const index = entries.length;
      entries.push([
        this.encodeAt(mapKeySegment(index), key),
        this.encodeAt(mapValueSegment(key, index), value),
      ]);
    }
    return tagged('Map', entries);
  }

  private encodeSet(set: ReadonlySet<unknown>): unknown {
    const items: unknown[] = [];
    for (const item of set) items.push(this.encodeAt(entrySegment(items.length), item));
    return tagged('Set', items);
  }

  private encodeError(error: Error & { code?: unknown; errors?: unknown }): unknown {
    const node: Record<string, unknown> = {
      [TAG_KEY]: 'Error',
      name: this.readAt('name', () => String(error.name)),
    };
    const className = errorClassName((Object.getPrototypeOf(error) as object | null)?.constructor);
    if (className !== '' && className !== node.name) node.class = className;
    if (Object.hasOwn(error, 'message')) {
      node.message = this.readAt('message', () => String(error.message));
    }
    const stack = this.readAt('stack', () => error.stack);
    if (typeof stack === 'string') node.stack = stack;
    const aggregate = error instanceof AggregateError && Array.isArray(error.errors);
    const keys = Object.keys(error).filter(
      (key) => !ERROR_FIELDS.has(key) && !(aggregate && key === 'errors'),
    );
    for (const key of keys) {
      if (hidesErrorMethod(error, key)) {
        this.segments.push(key);
        throw this.fail(`a property named ${key} would hide the error's ${key}() method`);
      }
    }
    const code = keys.includes('code') ? undefined : this.readAt('code', () => error.code);
    if (code !== undefined) node.code = this.encodeAt('code', code);
    if (Object.hasOwn(error, 'cause')) node.cause = this.encodeField(error, 'cause');
    if (aggregate) node.errors = this.encodeField(error, 'errors');
    if (keys.length > 0) {
      const props = Object.create(null) as Record<string, unknown>;
      for (const key of keys) props[key] = this.encodeField(error, key);
      node.props = props;
    }
    return node;
  }

  /** Reads one field of the object at the current path; a throw names the field's path. */
  private readAt<T>(segment: PathSegment, read: () => T): T {
    this.segments.push(segment);
    try {
      return read();
    } catch (error) {
      throw this.fail(`reading it threw ${describeThrown(error)}`);
    } finally {
      this.segments.pop();
    }
  }

  private encodeField(object: object, key: string): unknown {
    return this.encodeAt(
      key,
      this.readAt(key, () => (object as Record<string, unknown>)[key]),
    );
  }

  private encodeAt(segment: PathSegment, value: unknown): unknown {
    this.segments.push(segment);
    const encoded = this.encodeValue(value);
    this.segments.pop();
    return encoded;
  }

  private fail(reason: string): SerializationError {
    return new SerializationError(formatPath(this.root, this.segments), reason);
  }
}

function copyKeys(object: object, keys: readonly string[], count: number) {
  const copy: Record<string, unknown> = {};
  for (let k = 0; k < count; k++)
    setKey(copy, keys[k], (object as Record<string, unknown>)[keys[k]]);
  return copy;
}

// Plain assignment to `__proto__` would set the prototype instead of a key.
function setKey(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(object, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else object[key] = value;
}
