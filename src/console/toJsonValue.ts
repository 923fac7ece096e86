/** Nesting below this depth is shown as a placeholder: a page shows values, not graphs. */
const MAX_DEPTH = 32;

/**
 * A stored value (a run's result or error, as the codec decodes it) as plain JSON, so any
 * value can be sent to the page: dates as ISO strings, `bigint` as a decimal string, maps
 * as objects of their entries, sets as arrays, errors as `{ name, message, code? }`,
 * `undefined` as `null`; cycles and very deep nesting are cut with a placeholder.
 *
 * @example
 * ```ts
 * toJsonValue({ at: new Date(0), ids: new Set([1n]) }); // { at: '1970-01-01T00:00:00.000Z', ids: ['1'] }
 * ```
 */
export function toJsonValue(value: unknown): unknown {
  return convert(value, 0, new Set());
}

function convert(value: unknown, depth: number, seen: Set<object>): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value !== 'object') return typeof value === 'function' ? '[function]' : value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  seen.add(value);
  try {
    const inner = (item: unknown): unknown => convert(item, depth + 1, seen);
    if (value instanceof Error) return errorJson(value, inner);
    if (Array.isArray(value)) return value.map(inner);
    if (value instanceof Set) return [...value].map(inner);
    if (value instanceof Map) {
      return Object.fromEntries([...value].map(([k, v]) => [String(k), inner(v)]));
    }
    if (ArrayBuffer.isView(value)) return `[${value.constructor.name}, ${value.byteLength} bytes]`;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inner(v)]));
  } finally {
    seen.delete(value);
  }
}

function errorJson(error: Error, inner: (item: unknown) => unknown): Record<string, unknown> {
  const { code } = error as { code?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(code === undefined ? {} : { code: inner(code) }),
  };
}
