/**
 * One step of a path inside a stored value: an object key, an array index, or text that is
 * printed as is (Map and Set entries).
 */
export type PathSegment = string | number | { readonly text: string };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Paths longer than this many segments are printed with their middle left out. */
const LONGEST_PRINTED = 24;
const KEPT_AT_EACH_END = 10;

/**
 * Prints a path the way a reader would write it in JavaScript:
 * `result.items[3].client`, `result["a b"]`, and for collections
 * `result.prices<"EUR">` (the Map value under key `"EUR"`),
 * `result.byUser<entry 2>` (the value of the third entry when its key is not a primitive),
 * `result.byUser<key of entry 2>` (that entry's key), `result.tags<entry 2>` (a Set element).
 * A very long path keeps its first and last steps: `result.a.a…(980 more levels)….a.a`.
 */
export function formatPath(root: string, segments: readonly PathSegment[]): string {
  if (segments.length > LONGEST_PRINTED) {
    const omitted = segments.length - 2 * KEPT_AT_EACH_END;
    const head = formatPath(root, segments.slice(0, KEPT_AT_EACH_END));
    const tail = formatPath('', segments.slice(-KEPT_AT_EACH_END));
    return `${head}…(${omitted} more levels)…${tail}`;
  }
  let path = root;
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (typeof segment === 'string') {
      path += IDENTIFIER.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
    } else path += segment.text;
  }
  return path;
}

/** The segment of the value stored under `key` in the `index`th entry of a Map. */
export function mapValueSegment(key: unknown, index: number): PathSegment {
  switch (typeof key) {
    case 'string':
      return { text: `<${JSON.stringify(key)}>` };
    case 'number':
      return { text: `<${Object.is(key, -0) ? '-0' : String(key)}>` };
    case 'bigint':
      return { text: `<${key}n>` };
    case 'boolean':
    case 'undefined':
      return { text: `<${String(key)}>` };
    default:
      return key === null ? { text: '<null>' } : entrySegment(index);
  }
}

/** The segment of the key of the `index`th entry of a Map. */
export function mapKeySegment(index: number): PathSegment {
  return { text: `<key of entry ${index}>` };
}

/** The segment of the `index`th element of a Set, or of a Map value with an object key. */
export function entrySegment(index: number): PathSegment {
  return { text: `<entry ${index}>` };
}
