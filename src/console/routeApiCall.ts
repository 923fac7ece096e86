import type { IncomingMessage } from 'node:http';
import { allowMethod } from './allowMethod';
import type { ConsoleApi } from './ConsoleApi';
import type { ConsoleCaller } from './ConsoleCredentials';
import { ConsoleHttpError } from './ConsoleHttpError';
import { readJsonBody } from './readJsonBody';
import { requireRole } from './requireRole';

/**
 * Dispatches an authorized API call to the {@link ConsoleApi} and returns the status and
 * JSON body to answer with. `path` is the part after `/api`:
 * `GET /runs`, `GET /runs/:id?from=&limit=`, `GET /queues`, `POST /runs/:id/signal`,
 * `POST /runs/:id/cancel`, `POST /runs/:id/retry`, `GET /runs/:id/streams` (whole values and
 * stream entries are served apart: see `serveWholeValue`, `serveStream`). Reads need the
 * `viewer` role; signals, cancellations and retries `operator` (signals and cancellations
 * are recorded as decided by `caller`).
 *
 * @example
 * ```ts
 * const [status, body] = await routeApiCall(api, req, '/runs/po-1', 65536, caller);
 * ```
 */
export async function routeApiCall(
  api: ConsoleApi,
  req: IncomingMessage,
  path: string,
  maxBodyBytes: number,
  caller: ConsoleCaller,
): Promise<[number, unknown]> {
  const [, collection, encodedId, action, ...rest] = path.split('/');
  if (collection === 'queues' && encodedId === undefined) {
    allowMethod(req, 'GET');
    requireRole(caller, 'viewer', 'GET /api/queues');
    return [200, await api.queues()];
  }
  if (collection !== 'runs' || rest.length > 0) throw noSuchApi();
  const query = new URL(req.url ?? '/', 'http://console').searchParams;
  if (encodedId === undefined || encodedId === '') {
    if (action !== undefined) throw noSuchApi();
    allowMethod(req, 'GET');
    requireRole(caller, 'viewer', 'GET /api/runs');
    return [200, await api.list(query)];
  }
  const runId = decodeSegment(encodedId);
  if (action === undefined) {
    allowMethod(req, 'GET');
    requireRole(caller, 'viewer', 'GET /api/runs/:id');
    return [200, await api.show(runId, query)];
  }
  if (action === 'streams') {
    allowMethod(req, 'GET');
    requireRole(caller, 'viewer', 'GET /api/runs/:id/streams');
    return [200, { streams: await api.streams(runId) }];
  }
  if (action !== 'signal' && action !== 'cancel' && action !== 'retry') throw noSuchApi();
  allowMethod(req, 'POST');
  requireRole(caller, 'operator', `POST /api/runs/:id/${action}`);
  const body = await readJsonBody(req, maxBodyBytes);
  if (action === 'retry') return [200, await api.retry(runId, body)];
  return [
    200,
    action === 'signal'
      ? await api.signal(runId, body, caller.name)
      : await api.cancel(runId, body, caller.name),
  ];
}

/** The run id and stream name of `/runs/:id/streams/:name`, else undefined. */
export function streamPath(path: string): { runId: string; name: string } | undefined {
  const [, collection, encodedId, action, encodedName, ...rest] = path.split('/');
  if (collection !== 'runs' || action !== 'streams' || !encodedId || !encodedName) return undefined;
  if (rest.length > 0) throw noSuchApi();
  return { runId: decodeSegment(encodedId), name: decodeSegment(encodedName) };
}

function noSuchApi(): ConsoleHttpError {
  return new ConsoleHttpError(404, 'no such API');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ConsoleHttpError(400, `malformed run id "${segment}"`);
  }
}
