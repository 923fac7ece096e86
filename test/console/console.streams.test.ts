import { container } from 'tsyringe';
import type { WaymarkRuntime } from 'waymark';
import { startConsole, type RunningConsole } from '../../src/console';
import { Narrator, NarratorScript } from '../support/fixtures/Narrator';
import { seedHistory } from '../support/seedHistory';
import { seedStream } from '../support/seedStream';
import { openRuntime } from './support/seedRuns';

interface ServerEvent {
  type: string;
  id?: string;
  data: any;
}

let runtime: WaymarkRuntime;
let served: RunningConsole;
const script = new NarratorScript();

beforeAll(async () => {
  container.registerInstance(NarratorScript, script);
  runtime = await openRuntime();
  served = await startConsole(runtime, { port: 0 });
});
afterAll(async () => {
  await served?.close();
  await runtime?.close({ grace: 0 });
});

function streamUrl(runId: string, name: string, query = ''): URL {
  return new URL(
    `api/runs/${encodeURIComponent(runId)}/streams/${encodeURIComponent(name)}${query}`,
    served.url,
  );
}

/** Reads server-sent events until the server ends the response or `until` says stop. */
async function readEvents(
  response: Response,
  until: (events: ServerEvent[]) => boolean = () => false,
): Promise<ServerEvent[]> {
  const events: ServerEvent[] = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const read = await reader.read();
    if (read.done) return events;
    buffer += decoder.decode(read.value, { stream: true });
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop()!;
    for (const block of blocks) {
      const event: ServerEvent = { type: 'message', data: undefined };
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event.type = line.slice(7);
        else if (line.startsWith('id: ')) event.id = line.slice(4);
        else if (line.startsWith('data: ')) event.data = JSON.parse(line.slice(6));
      }
      if (event.data !== undefined) events.push(event);
    }
    if (until(events)) {
      await reader.cancel();
      return events;
    }
  }
}

const auth = (): Record<string, string> => ({ authorization: `Bearer ${served.token}` });

describe('the console serves a run’s streams as server-sent events', () => {
  it('refuses a stream without the token, or with a wrong one', async () => {
    const done = await runtime.start(Narrator, 'narrate', ['no-token', 3]);
    await done.result();
    const bare = await fetch(streamUrl(done.runId, 'tokens'));
    expect(bare.status).toBe(401);
    const wrong = await fetch(streamUrl(done.runId, 'tokens'), {
      headers: { authorization: 'Bearer not-the-token-0000000' },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: expect.stringContaining('token') });
  });

  it('sends every entry with its offset as the event id, then an end event', async () => {
    const done = await runtime.start(Narrator, 'narrate', ['complete', 5]);
    await done.result();
    const response = await fetch(streamUrl(done.runId, 'tokens'), { headers: auth() });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readEvents(response);
    expect(events.map((e) => e.type)).toEqual([...Array(5).fill('message'), 'end']);
    expect(events.slice(0, 5).map((e) => [e.id, e.data.chunk])).toEqual(
      [0, 1, 2, 3, 4].map((i) => [String(i), `t${i}`]),
    );
    const listed = await fetch(new URL(`api/runs/${done.runId}/streams`, served.url), {
      headers: auth(),
    });
    expect(await listed.json()).toEqual({ streams: [{ name: 'tokens', length: 5, closed: true }] });
  });

  it('follows a live stream, and a reconnect with Last-Event-ID goes on with no duplicate', async () => {
    let release!: () => void;
    script.gate = new Promise((resolve) => (release = resolve));
    const live = await runtime.start(Narrator, 'narrate', ['live', 8]);
    const first = await readEvents(
      await fetch(streamUrl(live.runId, 'tokens', '?from=2'), { headers: auth() }),
      (events) => events.length >= 3,
    );
    expect(first.slice(0, 3).map((e) => e.id)).toEqual(['2', '3', '4']);
    release();
    const rest = await readEvents(
      await fetch(streamUrl(live.runId, 'tokens'), {
        headers: { ...auth(), 'last-event-id': '4' },
      }),
    );
    expect(rest.map((e) => e.id ?? e.type)).toEqual(['5', '6', '7', 'end']);
    await live.result();
    script.gate = Promise.resolve();
  });

  it('a reader of a waiting run gets its entries, then an end event when the run ends', async () => {
    const runId = 'waiting-reader';
    await seedHistory(runtime.dataSource, { runId, steps: 1, status: 'waiting', waitingFor: 'go' });
    await seedStream(runtime.dataSource, { runId, stream: 'llm', chunks: 2, chunkBytes: 8 });
    const reading = readEvents(await fetch(streamUrl(runId, 'llm'), { headers: auth() }));
    // Another process ends the run while the reader waits.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await runtime.dataSource.query(
      "UPDATE waymark_runs SET status = 'completed', waiting_for = NULL WHERE id = ?",
      [runId],
    );
    const events = await reading;
    expect(events.map((e) => e.id ?? e.type)).toEqual(['0', '1', 'end']);
  });

  it('answers 404 for a stream of an unknown run and 400 for a malformed offset', async () => {
    const unknown = await fetch(streamUrl('no-such-run', 'tokens'), { headers: auth() });
    expect(unknown.status).toBe(404);
    const malformed = await fetch(streamUrl('no-such-run', 'tokens', '?from=-3'), {
      headers: auth(),
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toContain('from');
  });
});
