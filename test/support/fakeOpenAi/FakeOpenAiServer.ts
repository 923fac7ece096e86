import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { completionBody, completionChunks } from './chatCompletions';
import type { FakeReply, FakeRequest, FakeScript } from './replies';

/**
 * A small OpenAI-compatible server on 127.0.0.1 (plain `node:http`): `POST
 * /v1/chat/completions`, JSON or server-sent events, each answer decided by a script —
 * text, tool calls, HTTP errors with headers (429 + `Retry-After`), slow answers, dropped
 * connections, or a call held open. Real clients talk to it through their base URL
 * (`baseURL` of `@ai-sdk/openai-compatible`, the OpenAI client's `baseURL`); nothing leaves
 * the machine. It records every request, and which were answered in full.
 */
export class FakeOpenAiServer {
  readonly requests: FakeRequest[] = [];
  private readonly listeners = new Set<(request: FakeRequest) => void>();
  private readonly server: Server;

  private constructor(private script: FakeScript) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  /** Starts a server on a free port of 127.0.0.1. */
  static async start(script: FakeScript): Promise<FakeOpenAiServer> {
    const fake = new FakeOpenAiServer(script);
    fake.server.listen(0, '127.0.0.1');
    await once(fake.server, 'listening');
    return fake;
  }

  /** `http://127.0.0.1:<port>/v1`, the base URL clients take. */
  get baseURL(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Replaces the script for the requests to come. */
  setScript(script: FakeScript): void {
    this.script = script;
  }

  /** Called with each request as it arrives (before it is answered). */
  onRequest(listener: (request: FakeRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The requests answered in full. */
  get completed(): FakeRequest[] {
    return this.requests.filter((r) => r.completed);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' },
        }),
      );
      return;
    }
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    const messages = (body.messages as Record<string, unknown>[] | undefined) ?? [];
    const request: FakeRequest = {
      index: this.requests.length,
      path,
      model: String(body.model),
      stream: body.stream === true,
      messages,
      turn: messages.filter((m) => m.role === 'tool').length,
      completed: false,
    };
    this.requests.push(request);
    for (const listener of this.listeners) listener(request);
    const reply = this.script(request);
    if (reply.delayMs) await sleep(reply.delayMs);
    await this.answer(request, reply, res);
  }

  private async answer(request: FakeRequest, reply: FakeReply, res: ServerResponse): Promise<void> {
    const id = `chatcmpl-${request.index}`;
    switch (reply.kind) {
      case 'hold':
        return; // the client's abort, or close(), ends it
      case 'error':
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(
          JSON.stringify({
            error: {
              message: reply.message ?? `scripted ${reply.status}`,
              type: 'fake_error',
              code: null,
            },
          }),
        );
        return;
      case 'drop':
        if (!request.stream || !reply.afterChunks) {
          res.socket?.destroy();
          return;
        }
        await this.streamChunks(
          res,
          completionChunks(id, request.model, {
            kind: 'text',
            text: 'partial answer that never ends',
          }).slice(0, reply.afterChunks),
          reply.chunkDelayMs,
        );
        res.socket?.destroy();
        return;
      default:
        if (!request.stream) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(completionBody(id, request.model, reply)));
        } else {
          await this.streamChunks(
            res,
            completionChunks(id, request.model, reply),
            reply.chunkDelayMs,
          );
          res.end('data: [DONE]\n\n');
        }
        request.completed = true;
    }
  }

  private async streamChunks(res: ServerResponse, chunks: unknown[], delayMs = 0): Promise<void> {
    if (!res.headersSent) {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
      });
    }
    for (const chunk of chunks) {
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      if (delayMs > 0) await sleep(delayMs);
    }
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}
