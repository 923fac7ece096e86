/**
 * The key that marks an encoded object as a tagged value, e.g.
 * `{"$wm":"Date","v":"2024-05-01T00:00:00.000Z"}`. A user's own object that has this key
 * is stored wrapped as `{"$wm":"Object","v":{...}}`.
 */
export const TAG_KEY = '$wm';

/** `TAG_KEY` as it appears in JSON text; text without it holds no tags. */
export const TAG_KEY_JSON = `"${TAG_KEY}"`;

/** An encoded object carrying a tag. */
export type TaggedNode = { [TAG_KEY]: string } & Record<string, unknown>;

/** Builds the tagged node `{"$wm": tag, "v": v}`. */
export function tagged(tag: string, v: unknown): TaggedNode {
  return { [TAG_KEY]: tag, v };
}

/** Stands for `undefined`, at the top level or inside an object or array. */
export const UNDEFINED_NODE: Readonly<TaggedNode> = Object.freeze({ [TAG_KEY]: 'undefined' });

/** Stands for a hole in a sparse array. */
export const HOLE_NODE: Readonly<TaggedNode> = Object.freeze({ [TAG_KEY]: 'hole' });

/** A typed array class stored byte for byte, under its own name as the tag. */
export type TypedArrayClass = new (buffer: ArrayBuffer) => ArrayBufferView;

/** The typed array classes stored by name (`Buffer` has its own tag). */
export const TYPED_ARRAYS: ReadonlyMap<string, TypedArrayClass> = new Map<string, TypedArrayClass>(
  [
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    Float32Array,
    Float64Array,
    BigInt64Array,
    BigUint64Array,
  ].map((cls) => [cls.name, cls]),
);
