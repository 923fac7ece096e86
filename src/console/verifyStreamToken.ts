import { timingSafeEqual } from 'node:crypto';
import { isInvalidArgumentError } from '../errors/InvalidArgumentError';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';

/** Signs a stream token: `runtime.streamToken`. */
export type StreamTokenSigner = WaymarkRuntime['streamToken'];

const TOKEN = /^(\d{1,12})\.[A-Za-z0-9_-]{43}$/;

/**
 * Whether `token` reads stream `name` of run `runId` at `nowMs`: the token `sign` makes for
 * this run and stream with the presented token's expiry is the same token (compared in
 * constant time), and that expiry is still ahead. Another run or stream, an expired,
 * tampered or malformed token: false.
 *
 * @example
 * ```ts
 * verifyStreamToken(query.get('token'), 'po-1', 'llm', (...a) => runtime.streamToken(...a));
 * ```
 */
export function verifyStreamToken(
  token: unknown,
  runId: string,
  name: string,
  sign: StreamTokenSigner,
  nowMs = Date.now(),
): boolean {
  const match = typeof token === 'string' ? TOKEN.exec(token) : null;
  if (!match) return false;
  const expiresAt = Number(match[1]) * 1000;
  let expected: string;
  try {
    expected = sign(runId, name, { expiresAt: new Date(expiresAt) });
  } catch (error) {
    // A run id or stream name no run can have: no token reads it.
    if (isInvalidArgumentError(error)) return false;
    throw error;
  }
  const presented = Buffer.from(token as string, 'utf8');
  const genuine = Buffer.from(expected, 'utf8');
  return (
    presented.length === genuine.length && timingSafeEqual(presented, genuine) && expiresAt > nowMs
  );
}
