import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigurationError } from '../errors/ConfigurationError';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { allowMethod } from './allowMethod';
import { hasBearerToken } from './bearerToken';
import { ConsoleApi } from './ConsoleApi';
import { consoleToken } from './consoleToken';
import { CONSOLE_ASSETS } from './consoleAssets';
import { ConsoleHttpError, isConsoleHttpError } from './ConsoleHttpError';
import { httpStatusOf } from './httpStatusOf';
import { send, sendError, sendJson } from './httpResponses';
import { DEFAULT_MAX_BODY_BYTES } from './readJsonBody';
import { routeApiCall, streamPath } from './routeApiCall';
import { serveStream } from './serveStream';
import { serveWholeValue, wholeValuePath } from './serveWholeValue';

/** Options of {@link createConsoleHandler}. */
export interface ConsoleHandlerOptions {
  /**
   * Every API call must carry it as `Authorization: Bearer <token>`; the page takes it from
   * the URL fragment `#token=…`. Use a long random one (`generateToken()`): at least 16
   * printable ASCII characters, no whitespace (surrounding whitespace is trimmed).
   */
  token: string;
  /**
   * The path the console is served under when the handler sees full paths (a plain
   * `http.createServer`), e.g. `'/waymark'`. Leave it out under `app.use('/waymark', …)`:
   * Express and Nest strip the mount path themselves.
   */
  basePath?: string;
  /** Largest request body accepted; default 64 KiB (larger is a 413). */
  maxBodyBytes?: number;
}

/** A Node request handler; `next` is called, when given, for paths outside `basePath`. */
export type ConsoleHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

/** A request as Express and Nest hand it to a mounted handler. */
interface MountedRequest extends IncomingMessage {
  originalUrl?: string;
}

/**
 * The web console as a Node request handler: the page (`/`, its script and stylesheet,
 * none of which needs the token) and the JSON API under `/api`, every call of which needs
 * the token: `GET /api/runs`, `GET /api/runs/:id`, `POST /api/runs/:id/signal`,
 * `POST /api/runs/:id/cancel`, `GET /api/runs/:id/streams` and, as server-sent events,
 * `GET /api/runs/:id/streams/:name?from=`.
 *
 * @example
 * ```ts
 * const app = await NestFactory.create(AppModule);
 * const runtime = app.get(WaymarkRuntime);
 * app.use('/waymark', createConsoleHandler(runtime, { token: process.env.WAYMARK_CONSOLE_TOKEN! }));
 * ```
 */
export function createConsoleHandler(
  runtime: WaymarkRuntime,
  options: ConsoleHandlerOptions,
): ConsoleHandler {
  const token = consoleToken(options.token, 'createConsoleHandler(): token');
  const basePath = normalizeBasePath(options.basePath);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const api = new ConsoleApi(runtime);

  const handle = async (
    req: MountedRequest,
    res: ServerResponse,
    next: ((error?: unknown) => void) | undefined,
  ): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://console');
    let path = url.pathname;
    if (basePath !== '') {
      if (path !== basePath && !path.startsWith(`${basePath}/`)) {
        if (next) next();
        else sendError(res, 404, 'not found');
        return;
      }
      path = path.slice(basePath.length);
    }
    const seen = new URL(req.originalUrl ?? req.url ?? '/', 'http://console').pathname;
    if (path === '' || (path === '/' && !seen.endsWith('/'))) {
      // Relative URLs in the page (app.js, api/runs) need the trailing slash.
      const location = `/${seen.replace(/^\/+|\/+$/g, '')}/`.replace(/^\/\/$/, '/');
      send(res, 308, 'text/plain; charset=utf-8', 'moved', { location: location + url.search });
      return;
    }
    if (path !== '/api' && !path.startsWith('/api/')) {
      serveAsset(req, res, path);
      return;
    }
    if (!hasBearerToken(req, token)) {
      throw new ConsoleHttpError(401, 'missing or wrong token (Authorization: Bearer <token>)', {
        'www-authenticate': 'Bearer',
      });
    }
    const stream = streamPath(path.slice('/api'.length));
    if (stream) return serveStream(runtime, req, res, stream.runId, stream.name);
    const whole = wholeValuePath(path.slice('/api'.length));
    if (whole) return serveWholeValue(api, req, res, whole);
    const [status, body] = await routeApiCall(api, req, path.slice('/api'.length), maxBodyBytes);
    sendJson(res, status, body);
  };

  return (req, res, next) => {
    handle(req, res, next).catch((error: unknown) => sendFailure(res, error));
  };
}

function serveAsset(req: IncomingMessage, res: ServerResponse, path: string): void {
  if (path === '/favicon.ico') {
    res.writeHead(204).end();
    return;
  }
  const asset = CONSOLE_ASSETS.get(path);
  if (!asset) {
    send(res, 404, 'text/plain; charset=utf-8', 'not found');
    return;
  }
  allowMethod(req, 'GET');
  send(res, 200, asset.contentType, asset.body);
}

/** Answers `{ error }` with the status for `error`; a 500 says it is an internal error. */
function sendFailure(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const status = httpStatusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const headers = isConsoleHttpError(error) ? error.headers : {};
  sendError(res, status, status === 500 ? `internal error: ${message}` : message, headers);
}

function normalizeBasePath(basePath: string | undefined): string {
  if (basePath === undefined) return '';
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed !== '' && !trimmed.startsWith('/')) {
    throw new ConfigurationError(
      `createConsoleHandler(): basePath must start with "/", got "${basePath}"`,
    );
  }
  return trimmed;
}
