import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Script } from 'node:vm';
import type { WaymarkRuntime } from 'waymark';
import {
  createConsoleHandler,
  startConsole,
  type RunDetailResponse,
  type RunListResponse,
  type RunningConsole,
} from '../../src/console';
import { CliOrders } from '../cli/fixtures/CliOrders';
import { ConsoleShop, MARKUP_ERROR, SCRIPT_PAYLOAD } from './fixtures/ConsoleShop';
import { seedHistory } from '../support/seedHistory';
import { openRuntime, seedRuns, waitForStatus, type SeededRuns } from './support/seedRuns';

const NEST_TOKEN = 'nest-token-0123456789';
const PLAIN_TOKEN = 'plain-token-0123456789';

interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

let runtime: WaymarkRuntime;
let served: RunningConsole;
let runs: SeededRuns;

beforeAll(async () => {
  runtime = await openRuntime();
  runs = await seedRuns(runtime, 'api');
  served = await startConsole(runtime, { port: 0 });
});
afterAll(async () => {
  await served?.close();
  await runtime?.close({ grace: 0 });
});

/** One API call against `base`, with the console token unless `token` says otherwise. */
async function call<T = any>(
  method: string,
  path: string,
  options: { body?: string; token?: string | null; type?: string; base?: string } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? served.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = options.type ?? 'application/json';
  const response = await fetch(new URL(path, options.base ?? served.url), {
    method,
    headers,
    body: options.body,
    redirect: 'manual',
  });
  const text = await response.text();
  const isJson = response.headers.get('content-type')?.startsWith('application/json');
  return {
    status: response.status,
    headers: response.headers,
    body: isJson ? JSON.parse(text) : text,
  };
}

const signal = (runId: string, body: unknown): Promise<Answer> =>
  call('POST', `api/runs/${encodeURIComponent(runId)}/signal`, { body: JSON.stringify(body) });

describe('the console page', () => {
  it('binds 127.0.0.1 and generates a 64-hex-digit token when none is given', () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(served.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is served without the token, under a strict CSP, with no inline script or style', async () => {
    const page = await call<string>('GET', '', { token: null });
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(page.body).not.toMatch(/\sstyle=|\son\w+=/);
    for (const [asset, type] of [
      ['dom.js', 'text/javascript'],
      ['timeline.js', 'text/javascript'],
      ['approvals.js', 'text/javascript'],
      ['detail.js', 'text/javascript'],
      ['streams.js', 'text/javascript'],
      ['app.js', 'text/javascript'],
      ['console.css', 'text/css'],
    ]) {
      const answer = await call<string>('GET', asset, { token: null });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toContain(type);
      if (type === 'text/javascript') expect(() => new Script(answer.body)).not.toThrow();
    }
    expect((await call('GET', 'nothing-here', { token: null })).status).toBe(404);
  });
});

describe('the console JSON API', () => {
  it('refuses every API call without the right token (401), reads included', async () => {
    for (const token of [null, 'wrong', `${served.token}x`, '']) {
      const list = await call('GET', 'api/runs', { token });
      expect(list.status).toBe(401);
      expect(list.headers.get('www-authenticate')).toBe('Bearer');
      const sent = await call('POST', `api/runs/${runs.waiting}/signal`, {
        token,
        body: JSON.stringify({ name: 'approval', payload: { approved: true } }),
      });
      expect(sent.status).toBe(401);
      expect((await call('POST', `api/runs/${runs.waiting}/cancel`, { token })).status).toBe(401);
    }
    expect(await runtime.handle(runs.waiting).status()).toBe('waiting');
  });

  it('lists runs newest first, filtered by status and workflow, page by page', async () => {
    const all = await call<RunListResponse>('GET', 'api/runs');
    expect(all.status).toBe(200);
    expect(all.body.runs.map((r) => r.runId).sort()).toEqual(Object.values(runs).sort());
    const failed = await call<RunListResponse>('GET', 'api/runs?status=failed');
    expect(failed.body.runs.map((r) => r.runId)).toEqual([runs.failed]);
    const two = await call<RunListResponse>('GET', 'api/runs?status=completed,waiting&limit=2');
    expect(two.body.runs).toHaveLength(2);
    expect(two.body.nextCursor).toEqual(expect.any(String));
    const rest = await call<RunListResponse>(
      'GET',
      `api/runs?status=completed&status=waiting&limit=2&cursor=${two.body.nextCursor}`,
    );
    expect(rest.body.runs).toHaveLength(1);
    expect(rest.body.nextCursor).toBeNull();
    const byWorkflow = await call<RunListResponse>('GET', 'api/runs?workflow=console-echo');
    expect(byWorkflow.body.runs.map((r) => r.runId)).toEqual([runs.markup]);
  });

  it('answers 400 with a message for a malformed filter', async () => {
    const cases: Array<[string, string]> = [
      ['status=finished', 'unknown status "finished"'],
      ['limit=0', 'limit must be an integer from 1 to 1000'],
      ['limit=ten', 'limit must be an integer from 1 to 1000'],
      ['cursor=garbage', 'is not one returned by list()'],
    ];
    for (const [query, message] of cases) {
      const answer = await call('GET', `api/runs?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(message);
    }
  });

  it('shows a run with its step history and, once it ended, its result or error', async () => {
    const failed = await call<RunDetailResponse>('GET', `api/runs/${runs.failed}`);
    expect(failed.status).toBe(200);
    expect(failed.body.run).toMatchObject({ runId: runs.failed, status: 'failed' });
    expect(failed.body.steps).toMatchObject([
      { seq: 0, name: 'draft', status: 'completed', attempts: 1 },
      { seq: 1, name: 'submitCharge', status: 'failed', attempts: 3 },
    ]);
    expect(failed.body.steps[1].error?.message).toContain(MARKUP_ERROR);
    expect(failed.body.outcome).toMatchObject({ error: { name: 'RetriesExhaustedError' } });
    const markup = await call<RunDetailResponse>('GET', `api/runs/${runs.markup}`);
    expect(markup.body.outcome).toEqual({ result: SCRIPT_PAYLOAD });
    const waiting = await call<RunDetailResponse>('GET', `api/runs/${runs.waiting}`);
    expect(waiting.body.run).toMatchObject({ status: 'waiting', waitingFor: 'signal:approval' });
    expect(waiting.body.steps.at(-1)).toMatchObject({ name: 'signal:approval', status: 'started' });
    expect(waiting.body.outcome).toBeNull();
  });

  it('answers 404 for an unknown run, to reads and actions alike', async () => {
    const show = await call('GET', 'api/runs/no-such-run');
    expect(show.status).toBe(404);
    expect(show.body.error).toBe('no run with id "no-such-run"');
    expect((await signal('no-such-run', { name: 'approval' })).status).toBe(404);
    expect((await call('POST', 'api/runs/no-such-run/cancel')).status).toBe(404);
  });

  it('answers 409 to a signal or a cancel for a run that ended', async () => {
    const sent = await signal(runs.completed, { name: 'approval', payload: { approved: true } });
    expect(sent.status).toBe(409);
    expect(sent.body.error).toContain('it is already completed');
    const cancel = await call('POST', `api/runs/${runs.failed}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body.error).toContain('it has already ended');
  });

  it('refuses a body over 64 KiB with 413, before reading it all', async () => {
    const big = { name: 'approval', payload: { note: 'x'.repeat(70 * 1024) } };
    const answer = await signal(runs.waiting, big);
    expect(answer.status).toBe(413);
    expect(answer.body.error).toBe('the request body is over 65536 bytes');
    const huge = await signal(runs.waiting, { name: 'approval', payload: 'y'.repeat(3 << 20) });
    expect(huge.status).toBe(413);
    expect(await runtime.handle(runs.waiting).status()).toBe('waiting');
  });

  it('answers 400 with a message for a body that is not JSON or not the expected shape', async () => {
    const url = `api/runs/${runs.waiting}/signal`;
    const cases: Array<[string, string]> = [
      ['{"name": "approval",', 'the request body is not valid JSON'],
      ['[1, 2]', 'the request body must be a JSON object'],
      ['{"payload": {}}', '"name" must be a string, got undefined'],
      ['{"name": ""}', '"name" must be 1 to 200 characters long, got 0'],
      [`{"name": "${'n'.repeat(201)}"}`, '"name" must be 1 to 200 characters long, got 201'],
      ['{"name": "a\\u0000b"}', '"name" must not contain the NUL character'],
      ['{"name": "approval", "approved": true}', 'unknown field "approved"'],
    ];
    for (const [body, message] of cases) {
      const answer = await call('POST', url, { body });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(message);
    }
    const text = await call('POST', url, { body: 'name=approval', type: 'text/plain' });
    expect(text.status).toBe(415);
    const reason = await call('POST', `api/runs/${runs.waiting}/cancel`, { body: '{"reason": 3}' });
    expect(reason.status).toBe(400);
    expect(await runtime.handle(runs.waiting).status()).toBe('waiting');
  });

  it('shows each queue with its depth and running runs, and each limiter', async () => {
    const answer = await call('GET', 'api/queues');
    expect(answer.status).toBe(200);
    const defaultQueue = answer.body.queues.find((q: { name: string }) => q.name === '');
    expect(defaultQueue).toMatchObject({ pending: 0, running: 0, executing: [] });
    expect(defaultQueue.waiting).toBeGreaterThanOrEqual(1);
    expect(answer.body.limiters).toEqual([]);
    expect((await call('POST', 'api/queues', { body: '{}' })).status).toBe(405);
  });

  it('answers 405 to the wrong method and 404 to an unknown API path', async () => {
    const get = await call('GET', `api/runs/${runs.waiting}/signal`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await call('DELETE', 'api/runs')).status).toBe(405);
    expect((await call('GET', 'api/steps')).status).toBe(404);
    expect((await call('POST', `api/runs/${runs.waiting}/fork`)).status).toBe(404);
  });

  it('sends a signal with an idempotency key once: a repeat answers duplicate, a bad key 400', async () => {
    const approval = await runtime.start(ConsoleShop, 'approve', ['api-signal-key']);
    await waitForStatus(runtime, approval.runId, 'waiting');
    const body = { name: 'approval', payload: { approved: true, by: 'ida' }, idempotencyKey: 'k1' };
    const first = await signal(approval.runId, body);
    expect(first).toMatchObject({ status: 200, body: { duplicate: false } });
    await expect(approval.result()).resolves.toBe('approved by ida');
    // The run took it and ended; the client's retry is answered, not refused with a 409.
    const again = await signal(approval.runId, body);
    expect(again).toMatchObject({ status: 200, body: { duplicate: true } });
    const bad = await signal(approval.runId, { ...body, idempotencyKey: 7 });
    expect(bad).toMatchObject({ status: 400 });
    expect(JSON.stringify(bad.body)).toContain('\\"idempotencyKey\\" must be a string, got number');
  });

  it('sends a signal that wakes the waiting run, and cancels a run', async () => {
    const approval = await runtime.start(ConsoleShop, 'approve', ['api-signal']);
    await waitForStatus(runtime, approval.runId, 'waiting');
    const sent = await signal(approval.runId, {
      name: 'approval',
      payload: { approved: true, by: 'dana' },
    });
    expect(sent).toMatchObject({
      status: 200,
      body: { runId: approval.runId, signal: 'approval', duplicate: false },
    });
    await expect(approval.result()).resolves.toBe('approved by dana');

    const doomed = await runtime.start(ConsoleShop, 'approve', ['api-cancel']);
    await waitForStatus(runtime, doomed.runId, 'waiting');
    const cancel = await call('POST', `api/runs/${doomed.runId}/cancel`, {
      body: JSON.stringify({ reason: 'duplicate order' }),
    });
    expect(cancel).toMatchObject({ status: 200, body: { runId: doomed.runId, cancelled: true } });
    const shown = await call<RunDetailResponse>('GET', `api/runs/${doomed.runId}`);
    expect(shown.body.run.status).toBe('cancelled');
    // The error as stored, not a caller's re-throw of it (which names the run and how to retry).
    expect(shown.body.outcome).toMatchObject({
      error: {
        name: 'RunCancelledError',
        message: `run "${doomed.runId}" was cancelled: duplicate order (by console-token via the console)`,
      },
    });
  });
});

/** Where a Nest app listening on 127.0.0.1 answers. */
function baseOf(app: NestExpressApplication): string {
  const server: Server = app.getHttpServer();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('the console handler in other servers', () => {
  @Module({})
  class HostModule {}

  it('mounts in a Nest (Express) app with app.use(path, handler)', async () => {
    const app = await NestFactory.create<NestExpressApplication>(HostModule, { logger: false });
    app.use('/ops/waymark', createConsoleHandler(runtime, { token: NEST_TOKEN }));
    await app.listen(0, '127.0.0.1');
    try {
      const base = baseOf(app);
      const bare = await call('GET', 'ops/waymark', { base, token: null });
      expect(bare.status).toBe(308);
      expect(bare.headers.get('location')).toBe('/ops/waymark/');
      const page = await call<string>('GET', 'ops/waymark/', { base, token: null });
      expect(page.body).toContain('<title>waymark console</title>');
      const list = await call<RunListResponse>('GET', 'ops/waymark/api/runs?status=failed', {
        base,
        token: NEST_TOKEN,
      });
      expect(list.body.runs.map((r) => r.runId)).toEqual([runs.failed]);
      expect((await call('GET', 'ops/waymark/api/runs', { base })).status).toBe(401);
      const sent = await call('POST', `ops/waymark/api/runs/${runs.completed}/signal`, {
        base,
        token: NEST_TOKEN,
        body: JSON.stringify({ name: 'approval' }),
      });
      expect(sent.status).toBe(409);
    } finally {
      await app.close();
    }
  });

  it('takes the body an application parser already read (express.json in Nest)', async () => {
    const app = await NestFactory.create<NestExpressApplication>(HostModule, {
      logger: false,
      bodyParser: false,
    });
    app.useBodyParser('json');
    app.use('/waymark', createConsoleHandler(runtime, { token: NEST_TOKEN }));
    await app.listen(0, '127.0.0.1');
    try {
      const base = baseOf(app);
      const options = { base, token: NEST_TOKEN };
      const missingName = await call('POST', `waymark/api/runs/${runs.waiting}/signal`, {
        ...options,
        body: JSON.stringify({ payload: 1 }),
      });
      expect(missingName.status).toBe(400);
      const finished = await call('POST', `waymark/api/runs/${runs.completed}/signal`, {
        ...options,
        body: JSON.stringify({ name: 'approval' }),
      });
      expect(finished.status).toBe(409);
    } finally {
      await app.close();
    }
  });

  it('serves only under basePath on a plain server, and passes other paths to next', async () => {
    const handler = createConsoleHandler(runtime, { token: PLAIN_TOKEN, basePath: '/waymark/' });
    const server = createServer((req, res) =>
      handler(req, res, () => {
        res.writeHead(418).end('next');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      expect((await call('GET', 'waymark', { base })).headers.get('location')).toBe('/waymark/');
      expect((await call('GET', 'waymark/', { base })).status).toBe(200);
      expect((await call('GET', 'waymark/api/runs', { base, token: PLAIN_TOKEN })).status).toBe(
        200,
      );
      expect((await call('GET', 'elsewhere', { base })).status).toBe(418);
      expect((await call('GET', 'waymarks', { base })).status).toBe(418);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses an empty token and a relative basePath', () => {
    expect(() => createConsoleHandler(runtime, { token: '' })).toThrow('token must be');
    expect(() =>
      createConsoleHandler(runtime, { token: PLAIN_TOKEN, basePath: 'waymark' }),
    ).toThrow('basePath must start with "/"');
  });
});

describe('the console token', () => {
  it('is trimmed of surrounding whitespace, so the token as printed matches', async () => {
    const padded = await startConsole(runtime, { port: 0, token: '  padded-token-0123456789\n' });
    try {
      expect(padded.token).toBe('padded-token-0123456789');
      const list = await call('GET', 'api/runs', { base: padded.url, token: padded.token });
      expect(list.status).toBe(200);
    } finally {
      await padded.close();
    }
  });

  it.each([
    ['inner whitespace', 'two words-0123456789', 'must not contain whitespace'],
    ['a tab inside', 'tab\there-0123456789', 'must not contain whitespace'],
    ['fewer than 16 characters', 'short-token', 'must be at least 16 characters long, got 11'],
    ['characters outside printable ASCII', 'tökén-0123456789ab', 'must be printable ASCII'],
    ['only whitespace', ' \t ', 'must be a non-empty string'],
  ])('refuses one with %s, which could never match, when it starts', async (_, token, message) => {
    expect(() => createConsoleHandler(runtime, { token })).toThrow(message);
    await expect(startConsole(runtime, { port: 0, token })).rejects.toThrow(message);
  });
});

describe('a long history in the console', () => {
  it('answers a page of steps at a time: from, limit and nextFrom; 400 for a malformed page', async () => {
    const first = await call<RunDetailResponse>('GET', `api/runs/${runs.completed}?limit=2`);
    expect(first.body.steps.map((s) => s.seq)).toEqual([0, 1]);
    expect(first.body.nextFrom).toBe(2);
    const rest = await call<RunDetailResponse>('GET', `api/runs/${runs.completed}?from=2&limit=2`);
    expect(rest.body.steps.map((s) => s.seq)).toEqual([2]);
    expect(rest.body.nextFrom).toBeNull();
    expect(rest.body.outcome).toEqual({ result: expect.any(String) });
    for (const [query, message] of [
      ['limit=0', 'limit must be an integer from 1 to 500'],
      ['limit=501', 'limit must be an integer from 1 to 500'],
      ['from=-1', 'from must be an integer from 0 to 2147483647'],
      ['from=1e3', 'from must be an integer from 0 to 2147483647'],
    ]) {
      const answer = await call('GET', `api/runs/${runs.completed}?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toContain(message);
    }
  });

  it('cuts long error messages, so a page stays small', async () => {
    await seedHistory(runtime.dataSource, {
      runId: 'console-long-errors',
      steps: 3,
      failed: [1],
      error: JSON.stringify({ $wm: 'Error', name: 'Error', message: 'x'.repeat(5000) }),
      status: 'failed',
    });
    const shown = await call<RunDetailResponse>('GET', 'api/runs/console-long-errors');
    expect(shown.body.steps[1].error!.message).toBe(`${'x'.repeat(1000)}… (4000 more characters)`);
  });

  it('shows each step’s output and the run’s arguments, long ones cut at 1,000 characters', async () => {
    await seedHistory(runtime.dataSource, {
      runId: 'console-long-outputs',
      steps: 2,
      outputBytes: 5000,
    });
    const [seeded, completed] = await Promise.all([
      call<RunDetailResponse>('GET', 'api/runs/console-long-outputs'),
      call<RunDetailResponse>('GET', `api/runs/${runs.completed}`),
    ]);
    expect(seeded.body.run.args).toEqual({ json: '[]', truncated: false, length: 2 });
    expect(seeded.body.steps[0].output).toEqual({
      json: `"${'0'.repeat(999)}`,
      truncated: true,
      length: 5000,
    });
    const { output } = completed.body.steps[0];
    expect(output?.truncated).toBe(false);
    expect(JSON.parse(output!.json)).toEqual(expect.any(Array));
    expect(completed.body.run.parkedReason).toBeNull();
  });

  it('says why a run is parked', async () => {
    await expect(runtime.run(CliOrders, 'ship', ['console'])).rejects.toThrow();
    const parked = await call<RunDetailResponse>('GET', 'api/runs/ship-console');
    expect(parked.body.run).toMatchObject({
      status: 'needs_attention',
      parkedSeq: 1,
      parkedReason: expect.stringMatching(
        /^RetriesExhaustedError \[\w+\]: .*book-carrier.*carrier unavailable for console/,
      ),
    });
  });

  it('lists the runs waiting for a signal, for the approvals panel, page by page', async () => {
    const waiting = await call<RunListResponse>('GET', 'api/runs?waitingFor=signal&limit=1');
    expect(waiting.body.runs.map((r) => r.runId)).toEqual([runs.waiting]);
    const bogus = await call('GET', 'api/runs?waitingFor=coffee');
    expect(bogus.status).toBe(400);
    expect(bogus.body.error).toContain('waitingFor must be signal, sleep or retry');
  });

  it('lists a run waiting for a tool call approval with the tool and its proposed arguments, cut', async () => {
    const note = `<img src=x onerror="window.__pwned = true">${'n'.repeat(3000)}`;
    const proposal = await runtime.start(ConsoleShop, 'proposeRefund', ['api', 150, note]);
    await waitForStatus(runtime, proposal.runId, 'waiting');
    const listed = await call<RunListResponse>('GET', 'api/runs?waitingFor=signal');
    const byId = new Map(listed.body.runs.map((run) => [run.runId, run]));
    const input = JSON.stringify({ orderId: 'order-api', amount: 150, note });
    expect(byId.get(proposal.runId)).toMatchObject({
      waitingFor: 'signal:approve:call-api',
      approval: {
        tool: 'refund',
        toolCallId: 'call-api',
        input: { json: input.slice(0, 1000), truncated: true, length: input.length },
      },
    });
    expect(byId.get(runs.waiting)).not.toHaveProperty('approval');
    const small = await runtime.start(ConsoleShop, 'proposeRefund', ['api-small', 20, 'ok']);
    await waitForStatus(runtime, small.runId, 'waiting');
    const all = await call<RunListResponse>('GET', 'api/runs');
    expect(all.body.runs.find((run) => run.runId === small.runId)?.approval).toEqual({
      tool: 'refund',
      toolCallId: 'call-api-small',
      input: {
        json: '{"orderId":"order-api-small","amount":20,"note":"ok"}',
        truncated: false,
        length: 53,
      },
      waitSeq: 1,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const unknown = await signal(proposal.runId, { name: 'approve:call-nope', payload: {} });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain(
      `run "${proposal.runId}" has no tool call "call-nope" waiting for approval (it waits for signal:approve:call-api)`,
    );
    for (const [run, id] of [
      [proposal, 'call-api'],
      [small, 'call-api-small'],
    ] as const) {
      expect(
        (await signal(run.runId, { name: `approve:${id}`, payload: { approved: false } })).status,
      ).toBe(200);
      await expect(run.result()).rejects.toThrow('not approved');
    }
    const after = await call<RunListResponse>('GET', 'api/runs?waitingFor=signal');
    expect(after.body.runs.map((run) => run.runId)).toEqual([runs.waiting]);
  });

  it('two decisions of one tool call at once: one 200, the other 409 naming who decided first', async () => {
    const proposal = await runtime.start(ConsoleShop, 'proposeRefund', ['api-race', 150, 'ok']);
    await waitForStatus(runtime, proposal.runId, 'waiting');
    const listed = await call<RunListResponse>('GET', 'api/runs?waitingFor=signal');
    const { waitSeq, digest } = listed.body.runs.find((r) => r.runId === proposal.runId)!.approval!;
    const name = 'approve:call-api-race';

    const stale = await signal(proposal.runId, {
      name,
      payload: { approved: true, waitSeq, digest: '0'.repeat(64) },
    });
    expect(stale.status).toBe(400);
    expect(stale.body.error).toContain(
      `waits on a request with digest ${digest}; reload it and decide again`,
    );

    const decide = (approved: boolean, decidedBy: string) =>
      signal(proposal.runId, { name, payload: { approved, decidedBy, waitSeq, digest } });
    const answers = await Promise.all([decide(true, 'dana'), decide(false, 'erin')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const approvedFirst = answers[0].status === 200;
    const refused = answers.find((a) => a.status === 409)!;
    // The console names the decider by the token's name, whatever `decidedBy` the page sent
    // (this console has one token, named `console-token`).
    expect(refused.body.error).toMatch(/already decided by console-token at \d{4}-/);
    if (approvedFirst)
      await expect(proposal.result()).resolves.toBe('refunded 150 on order-api-race');
    else await expect(proposal.result()).rejects.toThrow('not approved');
  });

  it('answers 400, never 503, for a run id or a signal name no run can have', async () => {
    const nul = await call('GET', 'api/runs/a%00b');
    expect(nul.status).toBe(400);
    expect(nul.body.error).toContain('must not contain the NUL character');
    const lone = await call('POST', `api/runs/a%ED%A0%80b/cancel`);
    expect(lone.status).toBe(400);
  });
});
