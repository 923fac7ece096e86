import type { ConsoleCaller } from './ConsoleCredentials';
import { ConsoleHttpError } from './ConsoleHttpError';
import { roleAllows, type ConsoleRole } from './ConsoleRole';

/**
 * Refuses, with a 403 naming the role needed, a call by a token whose role does not allow
 * it: the token is known (else it would be a 401), it just may not do this.
 *
 * @param what - the call, for the message: `'POST /api/runs/:id/signal'`.
 *
 * @example
 * ```ts
 * requireRole(caller, 'operator', 'POST /api/runs/:id/cancel');
 * ```
 */
export function requireRole(caller: ConsoleCaller, needed: ConsoleRole, what: string): void {
  if (!roleAllows(caller.role, needed)) {
    throw new ConsoleHttpError(
      403,
      `${what} needs the ${needed} role; the token of "${caller.name}" has the ${caller.role} role`,
    );
  }
}
