import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { isInvalidArgumentError, isRunNotFoundError, type WaymarkRuntime } from 'waymark';
import { createStreamHandler } from 'waymark/console';
import { ChatAgent } from './ChatAgent';
import { CHAT_STREAM, type ChatMessage } from './chatTypes';
import { readTranscript } from './transcript';

const PUBLIC = join(__dirname, 'public');
const ASSETS: Record<string, [file: string, type: string]> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/chat.js': ['chat.js', 'text/javascript; charset=utf-8'],
};
const MAX_BODY = 64 * 1024;

/**
 * The chat example's HTTP server (node:http, no framework):
 *
 * - `GET /` and `/chat.js`: the page.
 * - `POST /conversations/:id/messages` `{ id, text }`: the message as signal `message`, keyed
 *   by its id (`{ duplicate: true }` when it was sent already); starts the conversation's run
 *   on its first message.
 * - `GET /conversations/:id/transcript?cursor=&limit=`: answered turns, a page at a time, and a
 *   stream token for the page to read the conversation's stream with (`started: false` before
 *   the first message: there is no run, nor stream, yet).
 * - `GET /conversations/:id/token`: a new stream token (a restarted server may not take the
 *   page's).
 * - `GET /streams/:id/chat?token=&from=`: the stream, as server-sent events.
 */
export function createChatServer(runtime: WaymarkRuntime): Server {
  const streams = createStreamHandler({ runtime, basePath: '/streams' });
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://chat').pathname;
    if (path.startsWith('/streams/')) return streams(req, res);
    route(runtime, req, res, path).catch((error: unknown) => fail(res, error));
  });
}

async function route(
  runtime: WaymarkRuntime,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const asset = ASSETS[path];
  if (asset && req.method === 'GET') {
    res.writeHead(200, { 'content-type': asset[1], 'cache-control': 'no-store' });
    res.end(await readFile(join(PUBLIC, asset[0])));
    return;
  }
  const match = /^\/conversations\/([^/]+)\/(messages|transcript|token)$/.exec(path);
  if (!match) return send(res, 404, { error: 'not found' });
  const conversationId = decodeURIComponent(match[1] ?? '');
  if (match[2] === 'messages' && req.method === 'POST') {
    const message = parseMessage(await readBody(req));
    return send(res, 200, await deliver(runtime, conversationId, message));
  }
  if (match[2] === 'transcript' && req.method === 'GET') {
    const query = new URL(req.url ?? '/', 'http://chat').searchParams;
    const cursor = Number(query.get('cursor') ?? 0);
    const limit = Math.min(Number(query.get('limit') ?? 50), 200);
    if (!Number.isInteger(cursor) || cursor < 0 || !Number.isInteger(limit) || limit < 1) {
      return send(res, 400, { error: 'cursor and limit must be whole numbers' });
    }
    const page = await readTranscript(runtime, conversationId, cursor, limit).then(
      (read) => ({ ...read, started: true }),
      (error: unknown) => {
        if (isRunNotFoundError(error)) return { turns: [], nextCursor: null, started: false };
        throw error;
      },
    );
    return send(res, 200, { ...page, stream: streamOf(runtime, conversationId) });
  }
  if (match[2] === 'token' && req.method === 'GET') {
    return send(res, 200, streamOf(runtime, conversationId));
  }
  send(res, 405, { error: `${req.method ?? ''} is not allowed here` });
}

/** The conversation's stream, and a token good for reading it (and nothing else) for an hour. */
function streamOf(runtime: WaymarkRuntime, conversationId: string) {
  const token = runtime.streamToken(conversationId, CHAT_STREAM, { expiresIn: '1h' });
  return { name: CHAT_STREAM, token };
}

/** Signals the message, keyed by its id; the conversation's run is started on its first. */
async function deliver(
  runtime: WaymarkRuntime,
  conversationId: string,
  message: ChatMessage,
): Promise<{ duplicate: boolean }> {
  const send = () =>
    runtime.signal(conversationId, 'message', message, { idempotencyKey: message.id });
  try {
    return await send();
  } catch (error) {
    if (!isRunNotFoundError(error)) throw error;
    // Two first messages at once both start it: start() with one runId is one run.
    await runtime.start(ChatAgent, 'converse', [conversationId], { runId: conversationId });
    return send();
  }
}

function parseMessage(body: unknown): ChatMessage {
  const { id, text } = (body ?? {}) as Partial<ChatMessage>;
  if (typeof id !== 'string' || typeof text !== 'string' || text.trim() === '') {
    throw new BadRequest('the body must be { "id": "<message id>", "text": "<message>" }');
  }
  return { id, text };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > MAX_BODY) throw new BadRequest('the message is too long');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadRequest('the body must be JSON');
  }
}

class BadRequest extends Error {}

function fail(res: ServerResponse, error: unknown): void {
  if (error instanceof BadRequest || isInvalidArgumentError(error)) {
    return send(res, 400, { error: error.message });
  }
  console.error(error);
  send(res, 500, { error: 'the server failed; see its log' });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
