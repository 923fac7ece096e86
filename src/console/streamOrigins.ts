import type { IncomingMessage } from 'node:http';
import { ConfigurationError } from '../errors/ConfigurationError';

/**
 * Checks the origins allowed to read streams with a stream token from another site:
 * each one exactly as a browser sends it in `Origin` (`https://shop.example.com`,
 * `http://localhost:3000`), no path, no trailing slash, no `*`.
 *
 * @throws {@link ConfigurationError} naming `where` and the origin.
 */
export function checkStreamOrigins(origins: unknown, where: string): ReadonlySet<string> {
  if (origins === undefined) return new Set();
  if (!Array.isArray(origins)) {
    throw new ConfigurationError(
      `${where} must be an array of origins such as "https://app.example.com"`,
    );
  }
  for (const origin of origins) {
    if (typeof origin !== 'string' || !isOrigin(origin)) {
      throw new ConfigurationError(
        `${where}: ${JSON.stringify(origin)} is not an origin; write it as the browser sends ` +
          'it, scheme://host[:port] without a path, e.g. "https://app.example.com"',
      );
    }
  }
  return new Set(origins as string[]);
}

function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === text;
  } catch {
    return false;
  }
}

/**
 * The CORS headers for a request from `req`'s `Origin`: `Access-Control-Allow-Origin` only
 * for an allowed origin (no credentials: the token is in the URL), and always
 * `Vary: Origin` so a cache does not hand one site's answer to another.
 */
export function corsHeaders(
  req: IncomingMessage,
  allowed: ReadonlySet<string>,
): Record<string, string> {
  const origin = req.headers.origin;
  if (origin === undefined || !allowed.has(origin)) return { vary: 'Origin' };
  return { vary: 'Origin', 'access-control-allow-origin': origin };
}
