import { randomBytes } from 'node:crypto';

/**
 * A new console token: 32 random bytes, hex.
 *
 * @example
 * ```ts
 * const token = generateToken(); // '9f2c…' (64 characters)
 * ```
 */
export function generateToken(): string {
  return randomBytes(32).toString('hex');
}
