import type { WaymarkRuntime } from 'waymark';
import {
  generateToken,
  hashConsoleToken,
  startConsole,
  type RunDetailResponse,
  type RunningConsole,
} from '../../src/console';
import { ConsoleShop } from './fixtures/ConsoleShop';
import { openRuntime, waitForStatus } from './support/seedRuns';

const VIEWER = generateToken();
const OPERATOR = generateToken();
const ADMIN = generateToken();
const SINGLE = generateToken();

let runtime: WaymarkRuntime;
let served: RunningConsole;

beforeAll(async () => {
  runtime = await openRuntime();
  served = await startConsole(runtime, {
    port: 0,
    token: SINGLE,
    tokens: [
      { role: 'viewer', sha256: hashConsoleToken(VIEWER), name: 'support-desk' },
      { role: 'operator', sha256: hashConsoleToken(OPERATOR), name: 'dana' },
      { role: 'admin', sha256: hashConsoleToken(ADMIN).toUpperCase(), name: 'root' },
    ],
  });
});
afterAll(async () => {
  await served?.close();
  await runtime?.close({ grace: 0 });
});

async function call(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(new URL(path, served.url), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** A run waiting for the signal `approval`. */
async function waitingRun(tag: string): Promise<string> {
  const run = await runtime.start(ConsoleShop, 'approve', [tag]);
  await waitForStatus(runtime, run.runId, 'waiting');
  return run.runId;
}

const MUTATIONS = [
  { action: 'signal', body: { name: 'approval', payload: { approved: true } } },
  { action: 'cancel', body: { reason: 'duplicate' } },
  { action: 'retry', body: {} },
] as const;

describe('console tokens with roles', () => {
  it('lets a viewer read everything and refuses it every mutating route with a 403 naming the role', async () => {
    const runId = await waitingRun('roles-viewer');
    for (const path of [
      'api/runs',
      `api/runs/${runId}`,
      `api/runs/${runId}/streams`,
      'api/queues',
    ]) {
      expect((await call('GET', path, VIEWER)).status).toBe(200);
    }
    for (const { action, body } of MUTATIONS) {
      const refused = await call('POST', `api/runs/${runId}/${action}`, VIEWER, body);
      expect(refused).toEqual({
        status: 403,
        body: {
          error:
            `POST /api/runs/:id/${action} needs the operator role; ` +
            'the token of "support-desk" has the viewer role',
        },
      });
    }
    expect(await runtime.handle(runId).status()).toBe('waiting');
  });

  it('answers 401 to an unknown token on every mutating route, and leaves the run alone', async () => {
    const runId = await waitingRun('roles-unknown');
    for (const token of [null, generateToken(), hashConsoleToken(OPERATOR)]) {
      for (const { action, body } of MUTATIONS) {
        expect((await call('POST', `api/runs/${runId}/${action}`, token, body)).status).toBe(401);
      }
    }
    expect(await runtime.handle(runId).status()).toBe('waiting');
  });

  it.each([
    ['an operator', OPERATOR, 'dana'],
    ['an admin', ADMIN, 'root'],
    ['the single token', SINGLE, 'console-token'],
  ])('lets %s signal, and records who decided in the run history', async (_, token, name) => {
    const runId = await waitingRun(`roles-signal-${name}`);
    const sent = await call('POST', `api/runs/${runId}/signal`, token, {
      name: 'approval',
      payload: { approved: true, by: 'x', decidedBy: 'someone-else' },
    });
    expect(sent).toEqual({ status: 200, body: { runId, signal: 'approval', duplicate: false } });
    await expect(runtime.handle(runId).result()).resolves.toBe('approved by x');
    const shown = await call('GET', `api/runs/${runId}`, VIEWER);
    const steps = (shown.body as RunDetailResponse).steps;
    const wait = steps.find((step) => step.name === 'signal:approval');
    expect(wait?.finishedAt).toEqual(expect.any(String));
    expect(JSON.parse(wait!.output!.json)).toEqual({ approved: true, by: 'x', decidedBy: name });
  });

  it.each([
    ['an operator', OPERATOR, 'dana'],
    ['an admin', ADMIN, 'root'],
  ])('lets %s cancel, and the stored error says who cancelled', async (_, token, name) => {
    const runId = await waitingRun(`roles-cancel-${name}`);
    const cancelled = await call('POST', `api/runs/${runId}/cancel`, token, { reason: 'dup' });
    expect(cancelled).toEqual({ status: 200, body: { runId, cancelled: true } });
    const shown = await call('GET', `api/runs/${runId}`, VIEWER);
    expect(shown.body.outcome.error.message).toBe(
      `run "${runId}" was cancelled: dup (by ${name} via the console)`,
    );
  });

  it('lets an operator put a failed run back in the queue, for a worker to execute', async () => {
    await expect(runtime.run(ConsoleShop, 'charge', ['roles-retry'])).rejects.toThrow(
      'card declined',
    );
    const runId = 'charge-roles-retry';
    expect((await call('POST', `api/runs/${runId}/retry`, VIEWER, {})).status).toBe(403);
    expect((await call('POST', `api/runs/${runId}/retry`, OPERATOR, { now: true })).status).toBe(
      400,
    );
    const retried = await call('POST', `api/runs/${runId}/retry`, OPERATOR);
    expect(retried).toEqual({ status: 200, body: { runId, retried: true } });
    expect(await runtime.handle(runId).status()).toBe('pending');
    const again = await call('POST', `api/runs/${runId}/retry`, ADMIN);
    expect(again.status).toBe(409);
  });

  it('signals without a payload as { decidedBy }', async () => {
    const runId = await waitingRun('roles-bare');
    const sent = await call('POST', `api/runs/${runId}/signal`, OPERATOR, { name: 'approval' });
    expect(sent.status).toBe(200);
    await expect(runtime.handle(runId).result()).resolves.toBe('rejected by ?');
    const history = await runtime.handle(runId).history();
    const wait = history.find((step) => step.name === 'signal:approval');
    expect(JSON.parse(wait!.output!.json)).toEqual({ decidedBy: 'dana' });
  });
});

describe('configuring console tokens', () => {
  it('refuses a console without any token, a malformed hash, and a token listed twice', async () => {
    await expect(startConsole(runtime, { port: 0, tokens: [] })).rejects.toThrow(
      'give a token, or tokens with their roles',
    );
    await expect(
      startConsole(runtime, {
        port: 0,
        tokens: [{ role: 'viewer', sha256: VIEWER.slice(0, 10), name: 'short' }],
      }),
    ).rejects.toThrow('must be given as its SHA-256 hash');
    await expect(
      startConsole(runtime, {
        port: 0,
        token: SINGLE,
        tokens: [{ role: 'viewer', sha256: hashConsoleToken(SINGLE), name: 'again' }],
      }),
    ).rejects.toThrow('the token of "console-token" is listed twice');
  });
});
