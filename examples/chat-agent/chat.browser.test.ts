import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { container as rootContainer } from 'tsyringe';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { CHAT_MODEL } from './ChatAgent';
import { createChatServer } from './ChatServer';
import type { Turn } from './chatTypes';
import { openChromium, type ChromiumPage } from '../../test/support/chromium';
import { scriptedAnswer, scriptedChatModel } from './scriptedChatModel';

let dir: string;
let runtime: WaymarkRuntime;
let server: Server;
let origin: string;
let chrome: ChromiumPage | undefined;
let page: Page;
/** The user messages the model was really asked to answer, in order. */
const asked: string[] = [];
/** The paths the server answered, in order. */
const requested: string[] = [];
let problems: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'waymark-chat-browser-'));
  const scope = rootContainer.createChildContainer();
  // A word every 120 ms: an answer takes about 3 s, time to reload in the middle of it.
  scope.registerInstance(
    CHAT_MODEL,
    scriptedChatModel(120, (user) => asked.push(user)),
  );
  runtime = await Waymark.create({ database: `sqlite:${join(dir, 'chat.db')}`, container: scope });
  runtime.startWorker({ pollInterval: '100ms' });
  server = createChatServer(runtime);
  server.on('request', (req: { url?: string }) => requested.push(req.url ?? ''));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  chrome = await openChromium();
  ({ page, problems } = chrome);
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  await runtime?.close({ grace: 0 });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  expect(problems).toEqual([]);
});

async function open(conversation: string): Promise<void> {
  await page.goto(`${origin}/?c=${conversation}`);
  await page.waitForSelector('body[data-loaded="true"]');
}

async function type(text: string): Promise<void> {
  await page.fill('#text', text);
  await page.press('#text', 'Enter');
}

/** Turn `n`'s answer as the page shows it, once it is `state` (streaming or done) with some words. */
async function answer(n: number, state: 'streaming' | 'done'): Promise<string> {
  const shownAnswer = page.locator(`.turn[data-turn="${n}"] .answer[data-state="${state}"]`);
  for (;;) {
    const text = (await shownAnswer.count()) > 0 ? await shownAnswer.textContent() : null;
    if (text !== null && text.split(' ').length > 3) return text;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The little of a turn's element the page's DOM types are needed for. */
interface ShownTurn {
  querySelector(selector: string): { textContent: string | null } | null;
}

/** What the page shows: each turn's question and answer, in order (read in one evaluation). */
function shown(): Promise<Array<[string, string]>> {
  return page
    .locator('.turn')
    .evaluateAll((turns: ShownTurn[]) =>
      turns.map((turn): [string, string] => [
        turn.querySelector('.user')?.textContent ?? '',
        turn.querySelector('.answer')?.textContent ?? '',
      ]),
    );
}

async function transcript(conversation: string): Promise<Turn[]> {
  const response = await fetch(`${origin}/conversations/${conversation}/transcript`);
  return ((await response.json()) as { turns: Turn[] }).turns;
}

describe('examples/chat-agent in Chromium', () => {
  it('a typed message is answered token by token, as it streams', async () => {
    await open('typed');
    await type('hello');
    const partial = await answer(0, 'streaming');
    const whole = await answer(0, 'done');
    expect(whole).toBe(scriptedAnswer('hello', 0));
    expect(partial.length).toBeLessThan(whole.length);
    expect(whole.startsWith(partial)).toBe(true);
    expect(await shown()).toEqual([['hello', whole]]);
  });

  it('a reload mid-answer reconnects by offset and the same answer goes on to its end', async () => {
    await open('reloaded');
    await type('first');
    await answer(0, 'done');
    const [first] = await transcript('reloaded');
    await type('second');
    const before = await answer(1, 'streaming');
    requested.length = 0;
    await page.reload();
    await page.waitForSelector('body[data-loaded="true"]');
    // Read from where the transcript ends: the answer being streamed, from its first token.
    expect(requested.filter((path) => path.startsWith('/streams/'))).toEqual([
      expect.stringMatching(new RegExp(`^/streams/reloaded/chat\\?token=.+&from=${first.end}$`)),
    ]);
    const whole = await answer(1, 'done');
    expect(whole).toBe(scriptedAnswer('second', 1));
    expect(whole.startsWith(before)).toBe(true);
    expect(await shown()).toEqual([
      ['first', scriptedAnswer('first', 0)],
      ['second', whole],
    ]);
    // Not asked again: the reload changed nothing on the server.
    expect(asked.filter((text) => text === 'second')).toHaveLength(1);
  });

  it('the same message sent twice (one message id) is one turn', async () => {
    await open('twice');
    const receipts = await page.evaluate(() => {
      const { send } = (
        globalThis as unknown as {
          chat: { send(t: string, id: string): Promise<{ duplicate: boolean }> };
        }
      ).chat;
      return Promise.all([send('once please', 'msg-1'), send('once please', 'msg-1')]);
    });
    expect(receipts.map((r) => r.duplicate).sort()).toEqual([false, true]);
    await answer(0, 'done');
    // A turn after it: had the duplicate made a turn, it would come first.
    await type('and then');
    await answer(1, 'done');
    expect(await shown()).toEqual([
      ['once please', scriptedAnswer('once please', 0)],
      ['and then', scriptedAnswer('and then', 1)],
    ]);
    expect((await transcript('twice')).map((t) => t.messageId)).toEqual([
      'msg-1',
      expect.any(String),
    ]);
  });

  it('a message sent while an answer streams is queued and answered after it, in order', async () => {
    await open('queued');
    await type('one');
    await answer(0, 'streaming');
    await type('two');
    await type('three');
    expect(await page.locator('.queued').allTextContents()).toEqual(['two', 'three']);
    await answer(2, 'done');
    expect(await shown()).toEqual([
      ['one', scriptedAnswer('one', 0)],
      ['two', scriptedAnswer('two', 1)],
      ['three', scriptedAnswer('three', 2)],
    ]);
    expect(await page.locator('.queued').count()).toBe(0);
  });
});
