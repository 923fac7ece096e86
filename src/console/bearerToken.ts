import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

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

/**
 * Whether the request carries `Authorization: Bearer <token>`. Both sides are hashed
 * first, so the comparison takes the same time whatever the length or content of a guess.
 */
export function hasBearerToken(req: IncomingMessage, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!match) return false;
  return timingSafeEqual(digest(match[1]), digest(token));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
