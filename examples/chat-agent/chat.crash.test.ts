import { WorkerProcess } from '../../test/crash/support/WorkerProcess';
import { createTestDatabase, type Backend, type TestDatabase } from '../../test/support/databases';
import { SseReader, type SseEvent } from '../../test/support/SseReader';
import type { Turn } from './chatTypes';
import { scriptedAnswer } from './scriptedChatModel';

const MAIN = 'examples/chat-agent/main.ts';
const SECRET = 'chat-crash-test-secret-0123456789abcdef';
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

/** The example's server in a child process, on `url`, at a free port. */
async function startServer(url: string): Promise<{ server: WorkerProcess; origin: string }> {
  const server = WorkerProcess.start(MAIN, ['--port', '0'], {
    timeoutMs: 120_000,
    env: { WAYMARK_DATABASE_URL: url, CHAT_TOKEN_DELAY_MS: '100', CHAT_STREAM_SECRET: SECRET },
  });
  const line = await server.waitForLine((l) => l.startsWith('listening '));
  return { server, origin: line.slice('listening '.length).replace(/\/$/, '') };
}

async function post(origin: string, conversation: string, id: string, text: string) {
  const response = await fetch(`${origin}/conversations/${conversation}/messages`, {
    method: 'POST',
    body: JSON.stringify({ id, text }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { duplicate: boolean };
}

async function transcript(origin: string, conversation: string) {
  const turns: Turn[] = [];
  let token = '';
  for (let cursor: number | null = 0; cursor !== null;) {
    const response = await fetch(
      `${origin}/conversations/${conversation}/transcript?cursor=${cursor}&limit=2`,
    );
    const page = (await response.json()) as {
      turns: Turn[];
      nextCursor: number | null;
      stream: { token: string };
    };
    turns.push(...page.turns);
    token = page.stream.token;
    cursor = page.nextCursor;
  }
  return { turns, token };
}

/** Polls the transcript (a page at a time) until it has `count` turns. */
async function turnsOnceThere(origin: string, conversation: string, count: number) {
  for (;;) {
    const { turns } = await transcript(origin, conversation);
    if (turns.length >= count) return turns;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const streamUrl = (origin: string, conversation: string, token: string, from: number) =>
  `${origin}/streams/${conversation}/chat?token=${encodeURIComponent(token)}&from=${from}`;

const chunkOf = (event: SseEvent) => (event.data as { chunk?: unknown }).chunk;
const isText = (event: SseEvent) => event.type === 'message' && typeof chunkOf(event) === 'string';

describe.each(BACKENDS)('examples/chat-agent: SIGKILL mid-answer on %s', (backend) => {
  let db: TestDatabase;
  const servers: WorkerProcess[] = [];
  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    for (const server of servers) server.kill();
    await Promise.all(servers.map((s) => s.exited));
    await db.drop();
  });

  it('the conversation continues after a restart; no completed turn repeats, queued messages keep their order', async () => {
    const conversation = `crash-${backend}`;
    const first = await startServer(db.url);
    servers.push(first.server);
    // The first message twice at once: both find no run, both start it, one turn is stored.
    const firsts = await Promise.all([
      post(first.origin, conversation, 'm1', 'first'),
      post(first.origin, conversation, 'm1', 'first'),
    ]);
    expect(firsts.map((r) => r.duplicate).sort()).toEqual([false, true]);
    const [turn0] = await turnsOnceThere(first.origin, conversation, 1);
    expect(turn0).toMatchObject({ turn: 0, messageId: 'm1', answer: scriptedAnswer('first', 0) });

    // The second message is answered; the third waits in the queue meanwhile.
    expect(await post(first.origin, conversation, 'm2', 'second')).toEqual({ duplicate: false });
    expect(await post(first.origin, conversation, 'm3', 'third')).toEqual({ duplicate: false });
    const { token } = await transcript(first.origin, conversation);
    const live = new SseReader(streamUrl(first.origin, conversation, token, turn0.end));
    await live.until((events) => events.filter(isText).length >= 3);
    first.server.kill();
    expect(await first.server.exited).toEqual({ code: null, signal: 'SIGKILL' });
    await live.done;
    // The kill cut the second answer short.
    expect(live.events.some((e) => (chunkOf(e) as { type?: string })?.type === 'done')).toBe(false);

    const second = await startServer(db.url);
    servers.push(second.server);
    // The page's retry of the message whose answer it never saw end: one turn still.
    expect(await post(second.origin, conversation, 'm2', 'second')).toEqual({ duplicate: true });
    const turns = await turnsOnceThere(second.origin, conversation, 3);
    expect(turns.map((t) => [t.turn, t.messageId, t.answer])).toEqual([
      [0, 'm1', scriptedAnswer('first', 0)],
      [1, 'm2', scriptedAnswer('second', 1)],
      [2, 'm3', scriptedAnswer('third', 2)],
    ]);
    // Asked again: the cut answer and the queued one; never the completed first turn.
    expect(second.server.lines.filter((l) => l.startsWith('[model]'))).toEqual([
      '[model] answering "second"',
      '[model] answering "third"',
    ]);

    // The whole stream: each turn begins and ends once; the cut answer is followed by a
    // restart marker, and what comes after it is the whole answer.
    const { token: fresh } = await transcript(second.origin, conversation);
    const all = new SseReader(streamUrl(second.origin, conversation, fresh, 0));
    await all.until((events) => events.length >= turns[2].end);
    all.close();
    await all.done;
    const markers = all.events
      .map(chunkOf)
      .filter((c): c is { type: string; turn: number } => typeof c === 'object' && c !== null)
      .map((c) => `${c.type} ${c.turn}`);
    expect(markers).toEqual(['turn 0', 'done 0', 'turn 1', 'done 1', 'turn 2', 'done 2']);
    const restarts = all.events.filter((e) => e.type === 'restart');
    expect(restarts).toHaveLength(1);
    const after = all.events.slice(all.events.indexOf(restarts[0]));
    const secondAnswer = after.filter(isText).map(chunkOf).join('');
    expect(secondAnswer.startsWith(scriptedAnswer('second', 1))).toBe(true);
  }, 180_000);
});
