import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { ConsoleHttpError } from './ConsoleHttpError';
import { send } from './httpResponses';
import { sendFailure } from './sendFailure';
import { serveStream } from './serveStream';
import { corsHeaders } from './streamOrigins';
import { verifyStreamToken } from './verifyStreamToken';

/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

/**
 * Serves stream `name` of run `runId` as server-sent events (see `serveStream`) to a request
 * that carries a stream token for it in `?token=` (`runtime.streamToken()`; an `EventSource`
 * cannot send headers), with CORS headers for the allowed origins. A preflight (`OPTIONS`)
 * from an allowed origin is answered 204, from another 403. No token is a 401; a token that
 * does not read this stream now (another run or stream, expired, tampered) a 403. Every
 * answer, errors included, carries the CORS headers, so the page can tell what went wrong.
 *
 * @example
 * ```ts
 * await serveTokenStream(runtime, req, res, 'po-1', 'llm', new Set(['https://shop.example.com']));
 * ```
 */
export async function serveTokenStream(
  runtime: WaymarkRuntime,
  req: IncomingMessage,
  res: ServerResponse,
  runId: string,
  name: string,
  origins: ReadonlySet<string>,
): Promise<void> {
  const cors = corsHeaders(req, origins);
  try {
    await answer(runtime, req, res, runId, name, cors);
  } catch (error) {
    sendFailure(res, error, cors);
  }
}

/**
 * The run id and stream name of `/:runId/:name` (each URI-encoded), else a 404.
 *
 * @example
 * ```ts
 * tokenStreamAddress('/po-1/llm'); // { runId: 'po-1', name: 'llm' }
 * ```
 */
export function tokenStreamAddress(path: string): { runId: string; name: string } {
  const [empty, runId, name, ...rest] = path.split('/');
  if (empty !== '' || !runId || !name || rest.length > 0) {
    throw new ConsoleHttpError(404, 'no such stream: use /:runId/:streamName?token=…');
  }
  return { runId: decoded(runId), name: decoded(name) };
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ConsoleHttpError(400, `malformed path segment "${segment.slice(0, 80)}"`);
  }
}

async function answer(
  runtime: WaymarkRuntime,
  req: IncomingMessage,
  res: ServerResponse,
  runId: string,
  name: string,
  cors: Readonly<Record<string, string>>,
): Promise<void> {
  if (req.method === 'OPTIONS') {
    const allowed = 'access-control-allow-origin' in cors;
    send(res, allowed ? 204 : 403, 'text/plain; charset=utf-8', '', {
      ...cors,
      'access-control-allow-methods': 'GET',
      'access-control-allow-headers': 'last-event-id, cache-control',
      'access-control-max-age': String(PREFLIGHT_MAX_AGE),
    });
    return;
  }
  const token = new URL(req.url ?? '/', 'http://stream').searchParams.get('token');
  if (token === null || token === '') {
    throw new ConsoleHttpError(
      401,
      'a stream token is needed: ?token=<runtime.streamToken()>',
      cors,
    );
  }
  if (!verifyStreamToken(token, runId, name, (...args) => runtime.streamToken(...args))) {
    throw new ConsoleHttpError(
      403,
      'this token does not read this stream now: it is for another run or stream, expired, or altered',
      cors,
    );
  }
  await serveStream(runtime, req, res, runId, name, cors);
}
