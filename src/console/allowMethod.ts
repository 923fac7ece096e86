import type { IncomingMessage } from 'node:http';
import { ConsoleHttpError } from './ConsoleHttpError';

/**
 * Refuses a request whose method is not `method` (HEAD goes with GET) with a 405 that
 * names the allowed ones.
 *
 * @example
 * ```ts
 * allowMethod(req, 'POST'); // throws ConsoleHttpError(405) for a GET
 * ```
 */
export function allowMethod(req: IncomingMessage, method: 'GET' | 'POST'): void {
  const allowed = method === 'GET' ? ['GET', 'HEAD'] : [method];
  if (!allowed.includes(req.method ?? 'GET')) {
    throw new ConsoleHttpError(405, `use ${allowed.join(' or ')}`, { allow: allowed.join(', ') });
  }
}
