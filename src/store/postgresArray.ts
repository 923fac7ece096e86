/** A character that must be escaped inside a quoted element of an array literal. */
const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

/**
 * The PostgreSQL array literal of `values` (`{"a","b\"c",NULL}`, `{1,2}`): what node-postgres
 * sends for an array parameter, written here with one scan of each string. node-postgres runs
 * two regular-expression replaces and as many concatenations on every element, which in a
 * 64-row batch of checkpoints was a sixth of the process's work per step.
 */
export function postgresArray(values: ReadonlyArray<string | number | null>): string {
  const elements = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    elements[i] =
      value === null
        ? 'NULL'
        : typeof value === 'number'
          ? String(value)
          : NEEDS_ESCAPE.test(value)
            ? `"${value.replace(ESCAPED, '\\$&')}"`
            : `"${value}"`;
  }
  return `{${elements.join(',')}}`;
}
