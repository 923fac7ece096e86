/**
 * How deeply values may nest, in levels of the path (`result.a.b` is 2). JSON's own writer
 * and the codec both recurse, so a deeper value cannot be stored reliably; a stored text
 * nested deeper is refused when read rather than overflowing the stack.
 */
export const MAX_DEPTH = 1000;

/**
 * True when an own property `key` of `error` would hide a method its prototype chain
 * defines (`toString`, `valueOf`, …): stored values are never functions, so such an error
 * would throw from `String(error)` once read back.
 */
export function hidesErrorMethod(error: object, key: string): boolean {
  for (let p = Object.getPrototypeOf(error) as object | null; p !== null;) {
    const descriptor = Object.getOwnPropertyDescriptor(p, key);
    if (descriptor) return typeof descriptor.value === 'function';
    p = Object.getPrototypeOf(p) as object | null;
  }
  return false;
}

/** True when `text` (JSON) nests arrays and objects more than `max` levels deep. */
export function nestsDeeperThan(text: string, max: number): boolean {
  // Each level takes an opening and a closing bracket: shorter texts cannot be that deep.
  if (text.length <= 2 * max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
