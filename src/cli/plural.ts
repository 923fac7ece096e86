/**
 * `count` and `noun`, plural unless the count is one.
 *
 * @example
 * ```ts
 * plural(1, 'workflow'); // '1 workflow'
 * plural(3, 'step'); // '3 steps'
 * ```
 */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
