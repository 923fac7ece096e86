import 'reflect-metadata';
import { container } from 'tsyringe';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { FakeOpenAiServer, supportAgentScript } from '../support/fakeOpenAi';
import { AI_AGENT_ENV } from './support/AiAgentWorkflow';
import { AgentsSdkWorkflow } from './support/AgentsSdkWorkflow';

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
});
