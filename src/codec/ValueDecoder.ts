import { CorruptValueError } from '../errors/CorruptValueError';
import { decodeError } from './ErrorDecoding';
import {
  entrySegment,
  formatPath,
  mapKeySegment,
  mapValueSegment,
  type PathSegment,
} from './ValuePath';
import { TAG_KEY, type TaggedNode, TYPED_ARRAYS } from './ValueTags';

const NUMBERS: Readonly<Record<string, number>> = {
  NaN: NaN,
  Infinity: Infinity,
  '-Infinity': -Infinity,
  '-0': -0,
};

/**
 * The inverse of `ValueEncoder`: rebuilds a value from the tree `JSON.parse` returned,
 * reusing that tree's objects and arrays in place. Use one decoder per value.
 */
export class ValueDecoder {
  private readonly segments: PathSegment[] = [];

  /** @param root - the name the value's path starts with in error messages, e.g. `result` */
  constructor(private readonly root: string) {}

  /** The value `node` stands for; throws `CorruptValueError` naming the path. */
  decode(node: unknown): unknown {
    if (typeof node !== 'object' || node === null) return node;
    if (Array.isArray(node)) return this.decodeArray(node);
    if (!Object.hasOwn(node, TAG_KEY)) return this.decodeEntries(node as Record<string, unknown>);
    const tagged = node as TaggedNode;
    if (tagged[TAG_KEY] === 'hole') throw this.fail('a hole marker outside an array');
    return this.decodeTagged(tagged);
  }

  /** Decodes `node` one step further down the path. */
  decodeAt(segment: PathSegment, node: unknown): unknown {
    this.segments.push(segment);
    const value = this.decode(node);
    this.segments.pop();
    return value;
  }

  /** A `CorruptValueError` naming the current path. */
  fail(reason: string): CorruptValueError {
    return new CorruptValueError(formatPath(this.root, this.segments), reason);
  }

  private decodeTagged(node: TaggedNode): unknown {
    const tag = node[TAG_KEY];
    switch (tag) {
      case 'undefined':
        return undefined;
      case 'Object':
        return this.decodeEntries(this.expectObject(node.v));
      case 'Number':
        return this.decodeNumber(node.v);
      case 'BigInt':
        return this.attempt(() => BigInt(this.expectString(node.v)));
      case 'Date':
        return new Date(node.v === null ? NaN : this.expectString(node.v));
      case 'RegExp':
        return this.decodeRegExp(node.v);
      case 'Buffer':
        return Buffer.from(this.expectString(node.v), 'base64');
      case 'Map':
        return this.decodeMap(node.v);
      case 'Set':
        return new Set(
          this.expectArray(node.v).map((item, i) => this.decodeAt(entrySegment(i), item)),
        );
      case 'Error':
        return decodeError(node, this);
    }
    const typedArray = typeof tag === 'string' ? TYPED_ARRAYS.get(tag) : undefined;
    if (typedArray === undefined) throw this.fail(`unknown tag ${JSON.stringify(tag)}`);
    const bytes = Buffer.from(this.expectString(node.v), 'base64');
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    return this.attempt(() => new typedArray(buffer));
  }

  private decodeArray(array: unknown[]): unknown[] {
    for (let i = 0; i < array.length; i++) {
      const item = array[i];
      if (typeof item !== 'object' || item === null) continue;
      // Deleting, not assigning undefined, is what makes the index a hole again.
      if ((item as Partial<TaggedNode>)[TAG_KEY] === 'hole') Reflect.deleteProperty(array, i);
      else array[i] = this.decodeAt(i, item);
    }
    return array;
  }

  // Assigning to a key JSON.parse already created keeps `__proto__` an ordinary own key.
  private decodeEntries(object: Record<string, unknown>): Record<string, unknown> {
    for (const key of Object.keys(object)) {
      const node = object[key];
      if (typeof node === 'object' && node !== null) object[key] = this.decodeAt(key, node);
    }
    return object;
  }

  private decodeNumber(v: unknown): number {
    if (typeof v !== 'string' || !Object.hasOwn(NUMBERS, v)) {
      throw this.fail(`unknown number ${JSON.stringify(v)}`);
    }
    return NUMBERS[v];
  }

  private decodeRegExp(v: unknown): RegExp {
    const [source, flags] = this.expectArray(v);
    return this.attempt(() => new RegExp(this.expectString(source), this.expectString(flags)));
  }

  private decodeMap(v: unknown): Map<unknown, unknown> {
    const map = new Map<unknown, unknown>();
    this.expectArray(v).forEach((entry, i) => {
      const [key, value] = this.expectArray(entry);
      const decodedKey = this.decodeAt(mapKeySegment(i), key);
      map.set(decodedKey, this.decodeAt(mapValueSegment(decodedKey, i), value));
    });
    return map;
  }

  private attempt<T>(build: () => T): T {
    try {
      return build();
    } catch (error) {
      if (error instanceof CorruptValueError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new CorruptValueError(formatPath(this.root, this.segments), reason, { cause: error });
    }
  }

  /** `v` when it is a string, else a `CorruptValueError`. */
  expectString(v: unknown): string {
    if (typeof v !== 'string') throw this.fail(`expected a string, found ${JSON.stringify(v)}`);
    return v;
  }

  /** `v` when it is an array, else a `CorruptValueError`. */
  expectArray(v: unknown): unknown[] {
    if (!Array.isArray(v)) throw this.fail(`expected an array, found ${JSON.stringify(v)}`);
    return v;
  }

  /** `v` when it is a non-array object, else a `CorruptValueError`. */
  expectObject(v: unknown): Record<string, unknown> {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw this.fail(`expected an object, found ${JSON.stringify(v)}`);
    }
    return v as Record<string, unknown>;
  }
}
