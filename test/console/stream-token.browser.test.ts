import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { container } from 'tsyringe';
import type { WaymarkRuntime } from 'waymark';
import { createConsoleHandler, generateToken } from '../../src/console';
import { Narrator, NarratorScript } from '../support/fixtures/Narrator';
import { ConsoleShop } from './fixtures/ConsoleShop';
import { openRuntime, waitForStatus } from './support/seedRuns';
import { openChromium, type ChromiumPage } from '../support/chromium';

let runtime: WaymarkRuntime;
let consoleServer: Server;
let consoleUrl: string;
/** What the console answered, as `METHOD path status`. */
const answered: string[] = [];
let shop: Server;
let shopOrigin: string;
let chrome: ChromiumPage | undefined;
let page: Page;
let told: string;
let other: string;
let waiting: string;

beforeAll(async () => {
  container.registerInstance(NarratorScript, new NarratorScript());
  runtime = await openRuntime();
  told = (await runtime.start(Narrator, 'narrate', ['browser-a', 4])).runId;
  other = (await runtime.start(Narrator, 'narrate', ['browser-b', 2])).runId;
  await runtime.handle(told).result();
  await runtime.handle(other).result();
  waiting = (await runtime.start(ConsoleShop, 'approve', ['stream-token-browser'])).runId;
  await waitForStatus(runtime, waiting, 'waiting');
  // The end user's page: another port of 127.0.0.1 is another origin.
  shop = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>the shop</title><p>your order is being researched</p>');
  });
  await new Promise<void>((done) => shop.listen(0, '127.0.0.1', done));
  shopOrigin = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  const handler = createConsoleHandler(runtime, {
    token: generateToken(),
    streamOrigins: [shopOrigin],
  });
  consoleServer = createServer((req, res) => {
    res.on('finish', () => answered.push(`${req.method} ${req.url} ${res.statusCode}`));
    handler(req, res);
  });
  await new Promise<void>((done) => consoleServer.listen(0, '127.0.0.1', done));
  consoleUrl = `http://127.0.0.1:${(consoleServer.address() as AddressInfo).port}/`;
  chrome = await openChromium();
  ({ page } = chrome);
  await page.goto(`${shopOrigin}/order`);
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  consoleServer?.closeAllConnections();
  await new Promise((done) => consoleServer?.close(done));
  shop?.closeAllConnections();
  await new Promise((done) => shop?.close(done));
  await runtime?.close({ grace: 0 });
});

const streamUrl = (runId: string, token: string): string =>
  new URL(`api/streams/${runId}/tokens?token=${encodeURIComponent(token)}`, consoleUrl).href;

/**
 * Reads `url` with an EventSource in the page: the chunks received until `end`, or
 * `{ failed }` when the browser refuses the connection (a 403 fails it for good).
 */
function readInPage(url: string): Promise<{ chunks: string[] } | { failed: true }> {
  return page.evaluate(
    (source) =>
      new Promise<{ chunks: string[] } | { failed: true }>((resolve) => {
        const chunks: string[] = [];
        const events = new EventSource(source);
        events.onmessage = (event: { data: string }) => {
          chunks.push((JSON.parse(event.data) as { chunk: string }).chunk);
        };
        events.addEventListener('end', () => {
          events.close();
          resolve({ chunks });
        });
        events.onerror = () => {
          events.close();
          resolve({ failed: true });
        };
      }),
    url,
  );
}

describe('a stream token in Chromium, on a page of another origin', () => {
  it('reads the run’s stream with EventSource', async () => {
    expect(new URL(consoleUrl).origin).not.toBe(shopOrigin);
    const token = runtime.streamToken(told, 'tokens', { expiresIn: '5m' });
    expect(await readInPage(streamUrl(told, token))).toEqual({
      chunks: ['t0', 't1', 't2', 't3'],
    });
  });

  it('cannot read another run’s stream with the same token', async () => {
    const token = runtime.streamToken(told, 'tokens', { expiresIn: '5m' });
    expect(await readInPage(streamUrl(other, token))).toEqual({ failed: true });
    expect(answered).toContain(
      `GET /api/streams/${other}/tokens?token=${encodeURIComponent(token)} 403`,
    );
  });

  it('cannot approve a waiting run with it, as a bearer token or in the query', async () => {
    const token = runtime.streamToken(waiting, 'tokens', { expiresIn: '5m' });
    const signal = new URL(`api/runs/${waiting}/signal`, consoleUrl).href;
    const answers = await page.evaluate(
      async ({ url, bearer }) => {
        const body = JSON.stringify({ name: 'approval', payload: { approved: true } });
        const preflighted = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
          body,
        }).then(
          (response) => `status ${response.status}`,
          () => 'refused by the browser',
        );
        // A simple request is sent without a preflight; the console's answer (a 401) is then
        // withheld from the page (Cross-Origin-Resource-Policy: same-origin).
        const simple = await fetch(`${url}?token=${encodeURIComponent(bearer)}`, {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'content-type': 'text/plain' },
          body,
        }).then(
          (response) => `answer of type ${response.type}`,
          () => 'answer withheld',
        );
        return { preflighted, simple };
      },
      { url: signal, bearer: token },
    );
    expect(answers).toEqual({ preflighted: 'refused by the browser', simple: 'answer withheld' });
    expect(await runtime.handle(waiting).status()).toBe('waiting');
    const history = await runtime.handle(waiting).history();
    const path = `/api/runs/${waiting}/signal`;
    expect(answered).toContain(`OPTIONS ${path} 401`);
    expect(answered).toContain(`POST ${path}?token=${encodeURIComponent(token)} 401`);
    // The wait is still open: no signal reached it.
    expect(history.find((step) => step.name === 'signal:approval')?.status).toBe('started');
  });
});
