import type { IncomingMessage } from 'node:http';
import { ConsoleHttpError } from './ConsoleHttpError';

/** The largest request body the console reads by default: 64 KiB. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** Bytes of an over-long body still read (and dropped) so the client gets the 413 answer. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

/** A request an application's body parser (`express.json()`, Nest's default) has read. */
interface ParsedRequest extends IncomingMessage {
  body?: unknown;
}

/**
 * The request's JSON body, `undefined` when it has none. Over `maxBytes` is a 413, a body
 * that is not JSON a 400 naming the parser's complaint, a content type other than JSON a
 * 415. Mounted behind an application's body parser, the body it parsed is taken as it is.
 *
 * @example
 * ```ts
 * const body = await readJsonBody(req, DEFAULT_MAX_BODY_BYTES); // { name: 'approval', … }
 * ```
 */
export async function readJsonBody(req: ParsedRequest, maxBytes: number): Promise<unknown> {
  if (req.readableEnded) return req.body;
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) throw tooLarge(req, maxBytes);
  const text = await readText(req, maxBytes);
  if (text.trim() === '') return undefined;
  const type = req.headers['content-type'] ?? 'application/json';
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ConsoleHttpError(415, `expected Content-Type application/json, got ${type}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ConsoleHttpError(
      400,
      `the request body is not valid JSON: ${(error as Error).message}`,
    );
  }
}

function readText(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else {
        req.off('data', onData);
        reject(tooLarge(req, maxBytes));
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/** Drops the rest of the body (up to a limit) so the answer reaches a client still sending. */
function tooLarge(req: IncomingMessage, maxBytes: number): ConsoleHttpError {
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_LIMIT_BYTES) req.destroy();
  });
  req.resume();
  return new ConsoleHttpError(413, `the request body is over ${maxBytes} bytes`, {
    connection: 'close',
  });
}
