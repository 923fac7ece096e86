import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { container } from 'tsyringe';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { createStreamHandler, startConsole, type RunningConsole } from '../../src/console';
import { Narrator, NarratorScript } from '../support/fixtures/Narrator';
import { ConsoleShop } from './fixtures/ConsoleShop';
import { readEvents } from './support/readEvents';
import { waitForStatus } from './support/seedRuns';

const SHOP = 'http://shop.localhost:8080';
const SECRET = 'stream-token-secret-for-the-tests-0123';

let runtime: WaymarkRuntime;
let served: RunningConsole;
let app: Server;
let appUrl: string;
let told: string;
let other: string;

beforeAll(async () => {
  container.registerInstance(NarratorScript, new NarratorScript());
  runtime = await Waymark.create({
    database: 'sqlite::memory:',
    logger: { warn: () => {}, error: () => {}, info: () => {}, debug: () => {} },
    streamTokenSecret: SECRET,
  });
  told = (await runtime.start(Narrator, 'narrate', ['tokens-a', 3])).runId;
  other = (await runtime.start(Narrator, 'narrate', ['tokens-b', 2])).runId;
  await runtime.handle(told).result();
  await runtime.handle(other).result();
  served = await startConsole(runtime, { port: 0, streamOrigins: [SHOP] });
  const handler = createStreamHandler({ runtime, origins: [SHOP], basePath: '/streams' });
  app = createServer((req, res) => handler(req, res));
  await new Promise<void>((done) => app.listen(0, '127.0.0.1', done));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/streams/`;
});
afterAll(async () => {
  await served?.close();
  app?.closeAllConnections();
  await new Promise((done) => app?.close(done));
  await runtime?.close({ grace: 0 });
});

const WHERE = [
  ['the console', () => new URL('api/streams/', served.url).href],
  ['createStreamHandler', () => appUrl],
] as const;

describe.each(WHERE)('a stream token on %s', (_, base) => {
  const url = (runId: string, name: string, token: string): string =>
    `${base()}${encodeURIComponent(runId)}/${encodeURIComponent(name)}?token=${encodeURIComponent(token)}`;

  it('reads the one stream it was made for, with CORS for a configured origin only', async () => {
    const token = runtime.streamToken(told, 'tokens', { expiresIn: '5m' });
    const read = await fetch(url(told, 'tokens', token), { headers: { origin: SHOP } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(read.headers.get('vary')).toBe('Origin');
    const events = await readEvents(read);
    expect(events.map((e) => e.data.chunk ?? e.type)).toEqual(['t0', 't1', 't2', 'end']);

    const elsewhere = await fetch(url(told, 'tokens', token), {
      headers: { origin: 'http://evil.localhost' },
    });
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    await elsewhere.body?.cancel();
  });

  it('answers a preflight for a configured origin, and refuses one for another', async () => {
    const preflight = (origin: string) =>
      fetch(url(told, 'tokens', 'x'), {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET' },
      });
    const allowed = await preflight(SHOP);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(allowed.headers.get('access-control-allow-methods')).toBe('GET');
    const refused = await preflight('http://evil.localhost');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses another run, another stream, an expired, a tampered or a missing token', async () => {
    const token = runtime.streamToken(told, 'tokens');
    const expired = runtime.streamToken(told, 'tokens', { expiresAt: new Date(Date.now() - 1000) });
    const [expiry, signature] = token.split('.');
    const tampered = `${Number(expiry) + 86_400}.${signature}`;
    for (const [runId, name, presented] of [
      [other, 'tokens', token],
      [told, 'other-stream', token],
      [told, 'tokens', expired],
      [told, 'tokens', tampered],
    ]) {
      const refused = await fetch(url(runId, name, presented), { headers: { origin: SHOP } });
      expect(refused.status).toBe(403);
      // The page learns why: the refusal carries the CORS headers too.
      expect(refused.headers.get('access-control-allow-origin')).toBe(SHOP);
      expect(await refused.json()).toEqual({
        error: expect.stringContaining('does not read this stream'),
      });
    }
    const bare = await fetch(`${base()}${told}/tokens`);
    expect(bare.status).toBe(401);
    const post = await fetch(url(told, 'tokens', token), { method: 'POST' });
    expect(post.status).toBe(405);
  });
});

describe('a stream token grants nothing else on the console', () => {
  it('cannot read runs, approve, signal or cancel, as a bearer token or in ?token=', async () => {
    const waiting = await runtime.start(ConsoleShop, 'approve', ['stream-token']);
    await waitForStatus(runtime, waiting.runId, 'waiting');
    const token = runtime.streamToken(waiting.runId, 'tokens');
    const api = (path: string, init: RequestInit = {}) =>
      fetch(new URL(`api/runs/${waiting.runId}${path}`, served.url), init);
    const asBearer = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const approve = JSON.stringify({ name: 'approval', payload: { approved: true } });
    expect((await api('', { headers: asBearer })).status).toBe(401);
    expect((await api(`?token=${token}`)).status).toBe(401);
    expect(
      (await api('/signal', { method: 'POST', headers: asBearer, body: approve })).status,
    ).toBe(401);
    expect((await api(`/signal?token=${token}`, { method: 'POST', body: approve })).status).toBe(
      401,
    );
    expect((await api('/cancel', { method: 'POST', headers: asBearer })).status).toBe(401);
    expect((await api(`/streams/tokens?token=${token}`)).status).toBe(401);
    expect(await runtime.handle(waiting.runId).status()).toBe('waiting');
    await runtime.cancel(waiting.runId);
  });

  it('refuses a streamOrigins entry that is not an origin', async () => {
    await expect(
      startConsole(runtime, { port: 0, streamOrigins: ['https://shop.example.com/'] }),
    ).rejects.toThrow('is not an origin');
    expect(() => createStreamHandler({ runtime, origins: ['*'] })).toThrow('is not an origin');
  });
});
