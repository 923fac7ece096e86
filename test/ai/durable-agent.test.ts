import 'reflect-metadata';
import { container } from 'tsyringe';
import { generateText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { durableModel } from 'waymark/ai';
import { FakeOpenAiServer, supportAgentScript } from '../support/fakeOpenAi';
import { AI_AGENT_ENV, AiAgentWorkflow } from './support/AiAgentWorkflow';
import { approveEachWait, TWO_REFUNDS } from './support/approveEachWait';

describe('waymark/ai: an AI SDK agent loop as steps of a run', () => {
  let server: FakeOpenAiServer;
  let runtime: TestRuntime;
  const effects: string[] = [];

  beforeAll(async () => {
    server = await FakeOpenAiServer.start(supportAgentScript());
    container.register(AI_AGENT_ENV, {
      useValue: { baseURL: server.baseURL, effect: (what: string) => void effects.push(what) },
    });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    effects.length = 0;
    server.requests.length = 0;
    server.setScript(supportAgentScript());
    runtime = await createTestRuntime();
  });
  afterEach(async () => {
    await runtime.close();
  });

  it.each(['generate', 'stream'] as const)(
    'with %sText, each model call and tool call is a step, and calling again answers from the store',
    async (mode) => {
      const agent = container.resolve(AiAgentWorkflow);
      const first = await agent.answer(`t-${mode}`, mode);
      expect(first.text).toBe('Your order 1 was refunded. Anything else?');
      expect(first.toolCalls).toEqual([
        'call_lookup_1',
        'call_lookup_2',
        'call_lookup_3',
        'call_refund_1',
      ]);
      expect(server.completed.map((r) => r.turn)).toEqual([0, 1, 2, 3, 4]);
      expect(server.requests.every((r) => r.stream === (mode === 'stream'))).toBe(true);
      const history = await runtime.history(`ticket-t-${mode}`);
      expect(history.map((s) => s.name)).toEqual([
        'model:fake-gpt',
        'tool:lookupOrder',
        'model:fake-gpt',
        'tool:lookupOrder',
        'model:fake-gpt',
        'tool:lookupOrder',
        'model:fake-gpt',
        'tool:refund',
        'model:fake-gpt',
      ]);
      // The tool's idempotency key comes from the run and the tool call id.
      expect(effects).toContain(`refund 1 40 ticket-t-${mode}:tool:call_refund_1`);

      const again = await container.resolve(AiAgentWorkflow).answer(`t-${mode}`, mode);
      expect(again).toEqual(first);
      expect(server.requests).toHaveLength(5);
      expect(effects).toHaveLength(4);
    },
  );

  it.each(['generate', 'stream'] as const)(
    'with %sText, each model call stores the messages its prompt added, for the console',
    async (mode) => {
      server.setScript(supportAgentScript({ lookups: 1 }));
      await container.resolve(AiAgentWorkflow).answer(`m-${mode}`, mode);
      const history = await runtime.history(`ticket-m-${mode}`, { valueChars: Infinity });
      const added = history
        .filter((step) => step.name.startsWith('model:'))
        .map((step) => (JSON.parse(step.output!.json) as { newMessages: unknown }).newMessages);
      expect(added).toEqual([
        [
          {
            role: 'user',
            content: [
              { type: 'text', text: `Ticket m-${mode}: where is my order, and refund order 1.` },
            ],
          },
        ],
        [
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'call_lookup_1',
                toolName: 'lookupOrder',
                output: { type: 'json', value: { orderId: '1', status: 'shipped', total: 40 } },
              },
            ],
          },
        ],
        [
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'call_refund_1',
                toolName: 'refund',
                output: { type: 'json', value: { refundId: 'R-1', amount: 40 } },
              },
            ],
          },
        ],
      ]);
    },
  );

  it('outside a run the wrapped model passes through', async () => {
    server.setScript(() => ({ kind: 'text', text: 'plain' }));
    const provider = createOpenAICompatible({
      name: 'fake',
      baseURL: server.baseURL,
      apiKey: 'test',
    });
    const { text } = await generateText({
      model: durableModel(provider.chatModel('m')),
      prompt: 'hi',
    });
    expect(text).toBe('plain');
    expect(server.requests).toHaveLength(1);
    expect((await runtime.list()).runs).toHaveLength(0);
  });

  it('a refund over $100 waits for approve:<toolCallId>; an unknown tool call is refused, naming it', async () => {
    server.setScript(supportAgentScript({ refundAmount: 150 }));
    const waiting = new Promise<void>((resolve) => runtime.on('run.waiting', () => resolve()));
    const handle = await runtime.start(AiAgentWorkflow, 'answer', ['t-approve']);
    await waiting;
    const summary = await handle.describe();
    expect(summary).toMatchObject({
      status: 'waiting',
      waitingFor: 'signal:approve:call_refund_1',
    });
    // The proposed call is recorded just before the wait.
    const history = await handle.history();
    expect(history.slice(-2).map((s) => s.name)).toEqual([
      'approval-request',
      'signal:approve:call_refund_1',
    ]);
    expect(effects.filter((e) => e.startsWith('refund'))).toEqual([]);

    await expect(
      runtime.signal(handle.runId, 'approve:call_nope', { approved: true }),
    ).rejects.toThrow(
      'signal(): name "approve:call_nope" is refused: run "ticket-t-approve" has no tool call "call_nope" waiting for approval (it waits for signal:approve:call_refund_1)',
    );
    await runtime.signal(handle.runId, 'approve:call_refund_1', { approved: true, by: 'dana' });
    const answer = await handle.result();
    expect(answer.toolCalls).toContain('call_refund_1');
    expect(effects.filter((e) => e.startsWith('refund'))).toEqual([
      'refund 1 150 ticket-t-approve:tool:call_refund_1',
    ]);
    // The model was asked once per turn, across the wait.
    expect(server.completed.map((r) => r.turn)).toEqual([0, 1, 2, 3, 4]);
  });

  it('two refunds proposed in one turn that both need approval are asked one after the other, each run once', async () => {
    server.setScript((request) =>
      request.turn === 0 ? TWO_REFUNDS : { kind: 'text', text: 'Both refunded.' },
    );
    const { asked, result } = await approveEachWait(
      runtime,
      () => runtime.start(AiAgentWorkflow, 'answer', ['t-two']),
      2,
    );
    expect(result.text).toBe('Both refunded.');
    expect(asked).toEqual(['signal:approve:call_r1', 'signal:approve:call_r2']);
    expect(effects.filter((e) => e.startsWith('refund'))).toEqual([
      'refund 1 150 ticket-t-two:tool:call_r1',
      'refund 2 250 ticket-t-two:tool:call_r2',
    ]);
    expect(server.completed.map((r) => r.turn)).toEqual([0, 2]);
  });

  it('a rejected tool call reaches the model as the tool error, and the run goes on', async () => {
    server.setScript(supportAgentScript({ refundAmount: 500 }));
    const waiting = new Promise<void>((resolve) => runtime.on('run.waiting', () => resolve()));
    const handle = await runtime.start(AiAgentWorkflow, 'answer', ['t-reject']);
    await waiting;
    await runtime.signal(handle.runId, 'approve:call_refund_1', {
      approved: false,
      reason: 'too much',
    });
    await handle.result();
    const last = server.requests.at(-1)!;
    expect(JSON.stringify(last.messages)).toContain('was not approved: too much');
    expect(effects.filter((e) => e.startsWith('refund'))).toEqual([]);
  });
});
