import 'reflect-metadata';
import { container } from 'tsyringe';
import { tool } from '@openai/agents';
import { durableAgentTools } from 'waymark/ai';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { z } from 'zod';
import { FakeOpenAiServer, supportAgentScript } from '../support/fakeOpenAi';
import { AI_AGENT_ENV } from './support/AiAgentWorkflow';
import { AgentsSdkWorkflow } from './support/AgentsSdkWorkflow';
import { approveEachWait, TWO_REFUNDS } from './support/approveEachWait';

describe('waymark/ai: an @openai/agents run as steps of a run', () => {
  let server: FakeOpenAiServer;
  let runtime: TestRuntime;
  const effects: string[] = [];
  beforeAll(async () => {
    server = await FakeOpenAiServer.start(supportAgentScript());
    container.register(AI_AGENT_ENV, {
      useValue: { baseURL: server.baseURL, effect: (what: string) => void effects.push(what) },
    });
    runtime = await createTestRuntime();
  });
  afterAll(async () => {
    await runtime.close();
    await server.close();
  });

  it('each model call and tool call is a step; calling again answers from the store', async () => {
    const answer = await container.resolve(AgentsSdkWorkflow).answer('a1');
    expect(answer).toBe('Your order 1 was refunded. Anything else?');
    expect(server.completed.map((r) => r.turn)).toEqual([0, 1, 2, 3, 4]);
    const history = await runtime.history('agents-a1');
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
    expect(effects).toContain('refund 1 40 agents-a1:tool:call_refund_1');
    expect(await container.resolve(AgentsSdkWorkflow).answer('a1')).toBe(answer);
    expect(server.requests).toHaveLength(5);
    expect(effects).toHaveLength(4);
  });

  it('each model call stores the messages its request added, for the console', async () => {
    await container.resolve(AgentsSdkWorkflow).answer('m1');
    const history = await runtime.history('agents-m1', { valueChars: Infinity });
    const added = history
      .filter((step) => step.name.startsWith('model:'))
      .map((step) => (JSON.parse(step.output!.json) as { newMessages: unknown }).newMessages);
    expect(added[0]).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Look orders up, then refund order 1.' }] },
      { role: 'user', content: [{ type: 'text', text: expect.stringContaining('m1') as unknown }] },
    ]);
    expect(added[1]).toEqual([
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_lookup_1',
            toolName: 'lookupOrder',
            output: { type: 'text', value: expect.stringContaining('shipped') as unknown },
          },
        ],
      },
    ]);
  });

  it("a refund over $100 (the tool's own needsApproval) waits for approve:<callId>, then runs once", async () => {
    server.setScript(supportAgentScript({ refundAmount: 150 }));
    server.requests.length = 0;
    const waiting = new Promise<void>((resolve) => runtime.on('run.waiting', () => resolve()));
    const handle = await runtime.start(AgentsSdkWorkflow, 'answer', ['a-approve']);
    await waiting;
    expect(await handle.describe()).toMatchObject({
      status: 'waiting',
      waitingFor: 'signal:approve:call_refund_1',
    });
    const history = await handle.history({ valueChars: Infinity });
    expect(history.slice(-2).map((s) => s.name)).toEqual([
      'approval-request',
      'signal:approve:call_refund_1',
    ]);
    expect(JSON.parse(history.at(-2)!.output!.json)).toEqual({
      tool: 'refund',
      toolCallId: 'call_refund_1',
      input: { orderId: '1', amount: 150 },
    });
    expect(effects.filter((e) => e.includes('a-approve'))).toHaveLength(3);
    await expect(
      runtime.signal(handle.runId, 'approve:call_nope', { approved: true }),
    ).rejects.toThrow(
      'signal(): name "approve:call_nope" is refused: run "agents-a-approve" has no tool call "call_nope" waiting for approval (it waits for signal:approve:call_refund_1)',
    );
    await runtime.signal(handle.runId, 'approve:call_refund_1', { approved: true, by: 'dana' });
    await expect(handle.result()).resolves.toBe('Your order 1 was refunded. Anything else?');
    expect(effects.filter((e) => e.startsWith('refund') && e.includes('a-approve'))).toEqual([
      'refund 1 150 agents-a-approve:tool:call_refund_1',
    ]);
    // The model was asked once per turn, across the wait.
    expect(server.completed.map((r) => r.turn)).toEqual([0, 1, 2, 3, 4]);
  });

  it('two refunds proposed in one turn that both need approval are asked one after the other, each run once', async () => {
    server.setScript((request) =>
      request.turn === 0 ? TWO_REFUNDS : { kind: 'text', text: 'Both refunded.' },
    );
    server.requests.length = 0;
    const { asked, result } = await approveEachWait(
      runtime,
      () => runtime.start(AgentsSdkWorkflow, 'answer', ['a-two']),
      2,
    );
    expect(result).toBe('Both refunded.');
    expect(asked).toEqual(['signal:approve:call_r1', 'signal:approve:call_r2']);
    expect(effects.filter((e) => e.startsWith('refund') && e.includes('a-two'))).toEqual([
      'refund 1 150 agents-a-two:tool:call_r1',
      'refund 2 250 agents-a-two:tool:call_r2',
    ]);
    expect(server.completed.map((r) => r.turn)).toEqual([0, 2]);
  });

  it("a rejected call reaches the model as the tool's output, and the run goes on", async () => {
    server.setScript(supportAgentScript({ refundAmount: 500 }));
    const waiting = new Promise<void>((resolve) => runtime.on('run.waiting', () => resolve()));
    const handle = await runtime.start(AgentsSdkWorkflow, 'answer', ['a-reject']);
    await waiting;
    await runtime.signal(handle.runId, 'approve:call_refund_1', {
      approved: false,
      reason: 'too much',
    });
    await expect(handle.result()).resolves.toBe('Your order 1 was refunded. Anything else?');
    const last = server.requests.at(-1)!;
    expect(JSON.stringify(last.messages)).toContain(
      'tool call \\"call_refund_1\\" of refund was not approved: too much',
    );
    expect(effects.filter((e) => e.includes('a-reject') && e.startsWith('refund'))).toEqual([]);
    expect((await handle.history()).map((s) => s.name)).not.toContain('tool:refund');
  });

  it('refuses approval options that name no function tool', () => {
    const echo = tool({
      name: 'echo',
      description: 'Echoes',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    });
    expect(() => durableAgentTools([echo], { ecco: { needsApproval: true } })).toThrow(
      'durableAgentTools(): options.ecco names no function tool; they are echo',
    );
    expect(() => durableAgentTools([echo], { echo: { approvalTimeout: 'soon' as never } })).toThrow(
      'durableAgentTools(): echo.approvalTimeout',
    );
  });
});
