import { CorruptValueError } from '../errors/CorruptValueError';
import { describeNode } from './describeNode';
import { decodeError } from './ErrorDecoding';
import type { NodeReader } from './NodeReader';
import { MAX_DEPTH } from './ValueLimits';
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

/** What `ValueEncoder` writes for a Date: `toISOString()`. */
const ISO_DATE = /^(?:\d{4}|[+-]\d{6})-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** What `ValueEncoder` writes for bytes: `toString('base64')`, padded. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+$/;

/**
 * The inverse of `ValueEncoder`: rebuilds a value from the tree `JSON.parse` returned,
 * reusing that tree's objects and arrays in place. Use one decoder per value.
 *
 * A node that `ValueEncoder` could not have written — nested deeper than {@link MAX_DEPTH},
 * a Date that is not an ISO time, bytes that are not base64, an error property that would
 * hide one of its methods, a tag with content of the wrong shape — is a `CorruptValueError`
 * naming its path: never a RangeError, an Invalid Date or an empty Buffer.
 */
export class ValueDecoder implements NodeReader {
  private readonly segments: PathSegment[] = [];

  /** @param root - the name the value's path starts with in error messages, e.g. `result` */
  constructor(private readonly root: string) {}

  /** The value `node` stands for; throws `CorruptValueError` naming the path. */
  decode(node: unknown): unknown {
    if (typeof node !== 'object' || node === null) return node;
    if (this.segments.length >= MAX_DEPTH)
      throw this.fail(`nested more than ${MAX_DEPTH} levels deep`);
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

  /** A `CorruptValueError` naming the current path, or `segment` below it. */
  fail(reason: string, segment?: PathSegment): CorruptValueError {
    const segments = segment === undefined ? this.segments : [...this.segments, segment];
    return new CorruptValueError(formatPath(this.root, segments), reason);
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
        return BigInt(this.expectMatch(node.v, DECIMAL, 'a decimal integer'));
      case 'Date':
        return this.decodeDate(node.v);
      case 'RegExp':
        return this.decodeRegExp(node.v);
      case 'Buffer':
        return Buffer.from(this.expectMatch(node.v, BASE64, 'base64'), 'base64');
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
    if (typedArray === undefined) throw this.fail(`unknown tag ${describeNode(tag)}`);
    const bytes = Buffer.from(this.expectMatch(node.v, BASE64, 'base64'), 'base64');
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
      throw this.fail(`unknown number ${describeNode(v)}`);
    }
    return NUMBERS[v];
  }

  // `null` is how an invalid Date is stored; any other text must be a valid ISO time.
  private decodeDate(v: unknown): Date {
    if (v === null) return new Date(NaN);
    const date = new Date(this.expectMatch(v, ISO_DATE, 'an ISO time'));
    // `new Date` rolls 2024-02-30 over to March; only what toISOString() wrote is a time.
    if (Number.isNaN(date.getTime()) || date.toISOString() !== v) {
      throw this.fail(`expected an ISO time, found ${describeNode(v)}`);
    }
    return date;
  }

  private decodeRegExp(v: unknown): RegExp {
    const [source, flags] = this.expectPair(v);
    return this.attempt(() => new RegExp(this.expectString(source), this.expectString(flags)));
  }

  private decodeMap(v: unknown): Map<unknown, unknown> {
    const map = new Map<unknown, unknown>();
    this.expectArray(v).forEach((entry, i) => {
      const [key, value] = this.expectPair(entry);
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
    if (typeof v !== 'string') throw this.fail(`expected a string, found ${describeNode(v)}`);
    return v;
  }

  /** `v` when it is an array, else a `CorruptValueError`. */
  expectArray(v: unknown): unknown[] {
    if (!Array.isArray(v)) throw this.fail(`expected an array, found ${describeNode(v)}`);
    return v;
  }

  /** `v` when it is a non-array object, else a `CorruptValueError`. */
  expectObject(v: unknown): Record<string, unknown> {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      throw this.fail(`expected an object, found ${describeNode(v)}`);
    }
    return v as Record<string, unknown>;
  }

  private expectPair(v: unknown): [unknown, unknown] {
    const array = this.expectArray(v);
    if (array.length !== 2) throw this.fail(`expected a pair, found ${describeNode(v)}`);
    return array as [unknown, unknown];
  }

  private expectMatch(v: unknown, pattern: RegExp, what: string): string {
    if (typeof v !== 'string' || !pattern.test(v)) {
      throw this.fail(`expected ${what}, found ${describeNode(v)}`);
    }
    return v;
  }
}
