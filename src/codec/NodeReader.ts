import type { CorruptValueError } from '../errors/CorruptValueError';
import type { PathSegment } from './ValuePath';

/**
 * What decoding a tagged node needs from the decoder walking the tree: reading a child one
 * step down the path, checking a field's shape, and failing with the current path. The
 * error decoder works against this, not against `ValueDecoder`, so neither imports the other.
 */
export interface NodeReader {
  /** Decodes `node` one step further down the path. */
  decodeAt(segment: PathSegment, node: unknown): unknown;
  /** `v` when it is a string, else a `CorruptValueError`. */
  expectString(v: unknown): string;
  /** `v` when it is an array, else a `CorruptValueError`. */
  expectArray(v: unknown): unknown[];
  /** `v` when it is a non-array object, else a `CorruptValueError`. */
  expectObject(v: unknown): Record<string, unknown>;
  /** A `CorruptValueError` naming the current path, or `segment` below it. */
  fail(reason: string, segment?: PathSegment): CorruptValueError;
}
