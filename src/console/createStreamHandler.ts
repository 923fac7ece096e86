import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import type { ConsoleHandler } from './createConsoleHandler';
import { ConsoleHttpError } from './ConsoleHttpError';
import { normalizeBasePath } from './normalizeBasePath';
import { sendFailure } from './sendFailure';
import { serveTokenStream, tokenStreamAddress } from './serveTokenStream';
import { checkStreamOrigins, corsHeaders } from './streamOrigins';

/** Options of {@link createStreamHandler}. */
export interface StreamHandlerOptions {
  /** The runtime whose `streamToken()`s the handler accepts (same `streamTokenSecret`). */
  runtime: WaymarkRuntime;
  /**
   * Sites whose pages may read the streams, as their `Origin` reads
   * (`['https://shop.example.com']`); other sites get no CORS headers. Default none: only
   * pages of the server's own origin.
   */
  origins?: readonly string[];
  /** As in `createConsoleHandler`: the mount path when the handler sees full paths. */
  basePath?: string;
}

/**
 * A Node request handler for the application's own server that serves one run's stream to
 * a browser holding a stream token (`runtime.streamToken()`): `GET /:runId/:name?token=…`
 * (under the mount path) as server-sent events, like the console's stream route, with CORS
 * for `origins`. The token reads that one stream until it expires, and nothing else.
 *
 * @example
 * ```ts
 * app.use('/streams', createStreamHandler({ runtime, origins: ['https://shop.example.com'] }));
 * // the page: new EventSource(`/streams/${runId}/llm?token=${token}`)
 * ```
 */
export function createStreamHandler(options: StreamHandlerOptions): ConsoleHandler {
  const { runtime } = options;
  const origins = checkStreamOrigins(options.origins, 'createStreamHandler(): origins');
  const basePath = normalizeBasePath(options.basePath, 'createStreamHandler()');
  return (req, res, next) => {
    let path = new URL(req.url ?? '/', 'http://stream').pathname;
    if (basePath !== '') {
      if (!path.startsWith(`${basePath}/`)) {
        if (next) next();
        else sendFailure(res, new ConsoleHttpError(404, 'not found'));
        return;
      }
      path = path.slice(basePath.length);
    }
    try {
      const { runId, name } = tokenStreamAddress(path);
      void serveTokenStream(runtime, req, res, runId, name, origins);
    } catch (error) {
      sendFailure(res, error, corsHeaders(req, origins));
    }
  };
}
