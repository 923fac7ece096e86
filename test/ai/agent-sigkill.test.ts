import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { WorkerProcess } from '../crash/support/WorkerProcess';
import { FakeOpenAiServer, supportAgentScript, type FakeScript } from '../support/fakeOpenAi';

const WORKER = 'test/ai/fixtures/aiAgentWorker.ts';
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];
/** generateText, streamText (the AI SDK), and run() of @openai/agents. */
const MODES = ['generate', 'stream', 'agents'] as const;

/** Four lookups (model calls 1–4 each ask for one), the refund (call 5), the answer (call 6). */
const script = supportAgentScript({ lookups: 4 });

describe.each(BACKENDS)(
  'an agent (AI SDK, OpenAI Agents SDK) killed with SIGKILL during its 5th model call, on %s',
  (backend) => {
    let db: TestDatabase;
    let server: FakeOpenAiServer;
    beforeAll(async () => {
      db = await createTestDatabase(backend);
      server = await FakeOpenAiServer.start(script);
    });
    afterAll(async () => {
      await server?.close();
      await db?.drop();
    });

    it.each(MODES)(
      'with %s, resumes with the first 4 model calls and their tool calls replayed',
      async (mode) => {
        server.requests.length = 0;
        // The 5th model call (turn 4) is held open the first time: the process dies inside it.
        let held = false;
        const holding: FakeScript = (request) => {
          if (request.turn === 4 && !held) {
            held = true;
            return { kind: 'hold' };
          }
          return script(request);
        };
        server.setScript(holding);
        const fifthCall = new Promise<void>((resolve) =>
          server.onRequest((request) => request.turn === 4 && resolve()),
        );
        const args = [db.url, server.baseURL, `sigkill-${mode}`, mode];

        const first = WorkerProcess.start(WORKER, args, { timeoutMs: 60_000 });
        await fifthCall;
        first.kill();
        expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

        const second = WorkerProcess.start(WORKER, args, { timeoutMs: 60_000 });
        await second.succeeded();

        // The server saw one request per completed model call, and the one cut by the kill.
        expect(server.requests.map((r) => r.turn)).toEqual([0, 1, 2, 3, 4, 4, 5]);
        expect(server.completed.map((r) => r.turn)).toEqual([0, 1, 2, 3, 4, 5]);
        // The resumed process answered the first 4 model calls and their tool calls from the store.
        expect(second.lines.filter((l) => l.startsWith('replayed '))).toEqual([
          'replayed 0 model:fake-gpt',
          'replayed 1 tool:lookupOrder',
          'replayed 2 model:fake-gpt',
          'replayed 3 tool:lookupOrder',
          'replayed 4 model:fake-gpt',
          'replayed 5 tool:lookupOrder',
          'replayed 6 model:fake-gpt',
          'replayed 7 tool:lookupOrder',
        ]);
        // Every tool ran once across both processes.
        const effects = [...first.lines, ...second.lines].filter((l) => l.startsWith('effect '));
        const runId = `${mode === 'agents' ? 'agents' : 'ticket'}-sigkill-${mode}`;
        expect(effects).toEqual([
          `effect lookup 1 ${runId}:tool:call_lookup_1`,
          `effect lookup 2 ${runId}:tool:call_lookup_2`,
          `effect lookup 3 ${runId}:tool:call_lookup_3`,
          `effect lookup 4 ${runId}:tool:call_lookup_4`,
          `effect refund 1 40 ${runId}:tool:call_refund_1`,
        ]);
        const result = JSON.parse(second.lines.find((l) => l.startsWith('result '))!.slice(7));
        expect(result).toMatchObject({ text: 'Your order 1 was refunded. Anything else?' });
      },
      120_000,
    );
  },
);
