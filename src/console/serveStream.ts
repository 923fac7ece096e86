import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { allowMethod } from './allowMethod';
import { toJsonValue } from './toJsonValue';

/** A comment line this often keeps proxies from closing a quiet stream (a waiting run's). */
const HEARTBEAT_MS = 15_000;

/**
 * `GET /api/runs/:id/streams/:name?from=`: the run's stream as server-sent events. Each entry
 * is an event with `id: <offset>` — `data: {"offset","seq","chunk"}`, or `event: restart` with
 * `data: {"offset","seq","restart":{step,seq,attempt}}` — and `event: end` when the stream closed or
 * the run ended. A reconnect resumes after `Last-Event-ID` (or at `from`). The next entry is
 * read only once the socket took the last one (`drain`), so a reader that does not read costs
 * a socket buffer, not the stream; `: heartbeat` comment lines keep a quiet stream open.
 * `headers` are added to the answer (CORS headers for a stream token's reader).
 *
 * @example
 * ```ts
 * await serveStream(runtime, req, res, 'po-1', 'llm'); // answers until the stream ends
 * ```
 */
export async function serveStream(
  runtime: WaymarkRuntime,
  req: IncomingMessage,
  res: ServerResponse,
  runId: string,
  name: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<void> {
  allowMethod(req, 'GET');
  const from = startOffset(req);
  await runtime.handle(runId).status(); // RunNotFoundError (404) before any event is sent
  const stop = new AbortController();
  const entries = runtime.readStream(runId, name, { from, signal: stop.signal });
  res.on('close', () => stop.abort());
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-accel-buffering': 'no',
    ...headers,
  });
  res.write(': waymark stream\n\n');
  // Only on an idle socket: a heartbeat must not grow the buffer of a reader that stalled.
  const heartbeat = setInterval(() => {
    if (!res.writableNeedDrain) res.write(': heartbeat\n\n');
  }, HEARTBEAT_MS).unref();
  try {
    for await (const entry of entries) {
      const data = entry.restart
        ? { offset: entry.offset, seq: entry.seq, restart: entry.restart }
        : { offset: entry.offset, seq: entry.seq, chunk: toJsonValue(entry.chunk) };
      const kind = entry.restart ? 'event: restart\n' : '';
      if (!res.write(`${kind}id: ${entry.offset}\ndata: ${JSON.stringify(data)}\n\n`)) {
        await drained(res, stop.signal);
      }
      if (stop.signal.aborted) break;
    }
    if (!stop.signal.aborted) res.write('event: end\ndata: {}\n\n');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    res.write(`event: error\ndata: ${JSON.stringify({ error: message })}\n\n`);
  } finally {
    clearInterval(heartbeat);
    res.end();
  }
}

/** Resolves when `res` can take more, or the client left. */
function drained(res: ServerResponse, left: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      left.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    left.addEventListener('abort', done, { once: true });
    if (left.aborted) done();
  });
}

/** `Last-Event-ID` + 1 when the client reconnects, else `?from=`, else 0. */
function startOffset(req: IncomingMessage): number {
  const last = req.headers['last-event-id'];
  const query = new URL(req.url ?? '/', 'http://console').searchParams.get('from');
  const text = typeof last === 'string' && last !== '' ? last : query;
  if (text === null || text === '') return 0;
  if (!/^\d{1,15}$/.test(text)) {
    throw new InvalidArgumentError(
      typeof last === 'string' && last !== '' ? 'Last-Event-ID' : 'from',
      `must be a stream offset (an integer ≥ 0), got "${text.slice(0, 40)}"`,
    );
  }
  return Number(text) + (text === last ? 1 : 0);
}
