import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { allowMethod } from './allowMethod';
import { ConsoleApi } from './ConsoleApi';
import { ConsoleCredentials } from './ConsoleCredentials';
import type { ConsoleTokenHash } from './consoleTokens';
import { CONSOLE_ASSETS } from './consoleAssets';
import { ConsoleHttpError } from './ConsoleHttpError';
import { send, sendError, sendJson } from './httpResponses';
import { normalizeBasePath } from './normalizeBasePath';
import { DEFAULT_MAX_BODY_BYTES } from './readJsonBody';
import { routeApiCall, streamPath } from './routeApiCall';
import { requireRole } from './requireRole';
import { sendFailure } from './sendFailure';
import { serveStream } from './serveStream';
import { serveTokenStream, tokenStreamAddress } from './serveTokenStream';
import { checkStreamOrigins } from './streamOrigins';
import { serveWholeValue, wholeValuePath } from './serveWholeValue';

/** Options of {@link createConsoleHandler}. */
export interface ConsoleHandlerOptions {
  /**
   * A token that may do everything (the `admin` role), recorded as `console-token` in what
   * it decides. Every API call must carry a token as `Authorization: Bearer <token>`; the
   * page takes it from the URL fragment `#token=…`. Use a long random one
   * (`generateToken()`): at least 16 printable ASCII characters, no whitespace (surrounding
   * whitespace is trimmed). Give `token`, `tokens`, or both.
   */
  token?: string;
  /**
   * Tokens with a role (`viewer` reads, `operator` also signals, cancels, retries, `admin` may do
   * everything) and a name the run's history records as `decidedBy`, each given by its
   * SHA-256 hash (`hashConsoleToken()`, or `parseConsoleTokens()` of a tokens file).
   */
  tokens?: readonly ConsoleTokenHash[];
  /**
   * The path the console is served under when the handler sees full paths (a plain
   * `http.createServer`), e.g. `'/waymark'`. Leave it out under `app.use('/waymark', …)`:
   * Express and Nest strip the mount path themselves.
   */
  basePath?: string;
  /** Largest request body accepted; default 64 KiB (larger is a 413). */
  maxBodyBytes?: number;
  /**
   * Sites whose pages may read `GET /api/streams/:runId/:name?token=` with a stream token
   * (`runtime.streamToken()`), as their `Origin` reads: `['https://shop.example.com']`.
   * Other sites get no CORS headers; the console's own page needs none.
   */
  streamOrigins?: readonly string[];
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
 * none of which needs a token) and the JSON API under `/api`, every call of which needs a
 * token — reads the `viewer` role, signals, cancels and retries `operator`: `GET /api/runs`,
 * `GET /api/runs/:id`, `POST /api/runs/:id/signal`, `POST /api/runs/:id/cancel`,
 * `GET /api/runs/:id/streams` and, as server-sent events, `GET /api/runs/:id/streams/:name?from=`;
 * and, for a page of the application's that holds a stream token instead of a console
 * token, `GET /api/streams/:runId/:name?token=` (CORS for `streamOrigins`).
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
  const credentials = ConsoleCredentials.of(options, 'createConsoleHandler()');
  const basePath = normalizeBasePath(options.basePath, 'createConsoleHandler()');
  const streamOrigins = checkStreamOrigins(
    options.streamOrigins,
    'createConsoleHandler(): streamOrigins',
  );
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
    if (path.startsWith('/api/streams/')) {
      const { runId, name } = tokenStreamAddress(path.slice('/api/streams'.length));
      return serveTokenStream(runtime, req, res, runId, name, streamOrigins);
    }
    const caller = credentials.identify(req);
    if (!caller) {
      throw new ConsoleHttpError(401, 'missing or wrong token (Authorization: Bearer <token>)', {
        'www-authenticate': 'Bearer',
      });
    }
    const stream = streamPath(path.slice('/api'.length));
    if (stream) {
      requireRole(caller, 'viewer', 'GET /api/runs/:id/streams/:name');
      return serveStream(runtime, req, res, stream.runId, stream.name);
    }
    const apiPath = path.slice('/api'.length);
    const whole = wholeValuePath(apiPath);
    if (whole) {
      requireRole(caller, 'viewer', 'GET /api/runs/:id/args, /outcome or /steps/:seq/output');
      return serveWholeValue(api, req, res, whole);
    }
    const [status, body] = await routeApiCall(api, req, apiPath, maxBodyBytes, caller);
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
