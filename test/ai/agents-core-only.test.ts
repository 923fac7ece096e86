import 'reflect-metadata';
import { Agent, Runner, setTracingDisabled } from '@openai/agents-core';
import { OpenAIProvider } from '@openai/agents-openai';
import { container, injectable } from 'tsyringe';
import { Workflow } from 'waymark';
import { durableModelProvider } from 'waymark/ai';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { FakeOpenAiServer } from '../support/fakeOpenAi';

// An application that installs the SDK's parts, not the `@openai/agents` bundle.
jest.mock('@openai/agents', () => {
  throw Object.assign(new Error("Cannot find module '@openai/agents'"), {
    code: 'MODULE_NOT_FOUND',
  });
});

setTracingDisabled(true);

/** Where the fake model listens (set once the server is up). */
let baseURL = '';

@injectable()
class CoreOnlyAgent {
  @Workflow({ name: 'agents-core-only', id: (question: string) => `core-only:${question}` })
  async answer(question: string): Promise<string> {
    const provider = new OpenAIProvider({ baseURL, apiKey: 'test', useResponses: false });
    const runner = new Runner({ modelProvider: durableModelProvider(provider) });
    const agent = new Agent({ name: 'helper', instructions: 'Answer briefly.', model: 'fake-gpt' });
    const result = await runner.run(agent, question);
    return `${String(result.finalOutput)} (${result.state.usage.requests} request)`;
  }
}

describe('waymark/ai with @openai/agents-core and @openai/agents-openai alone', () => {
  let server: FakeOpenAiServer;
  let runtime: TestRuntime;
  beforeAll(async () => {
    server = await FakeOpenAiServer.start(() => ({ kind: 'text', text: 'Forty-two.' }));
    baseURL = server.baseURL;
    runtime = await createTestRuntime();
  });
  afterAll(async () => {
    await runtime.close();
    await server.close();
  });

  it('records the model call, and answers it from the store with its usage, without the bundle', async () => {
    expect(() => jest.requireMock('@openai/agents')).toThrow("Cannot find module '@openai/agents'");
    const agent = container.resolve(CoreOnlyAgent);
    await expect(agent.answer('meaning')).resolves.toBe('Forty-two. (1 request)');
    await expect(runtime.handle('core-only:meaning').status()).resolves.toBe('completed');
    expect((await runtime.history('core-only:meaning')).map((step) => step.name)).toEqual([
      'model:fake-gpt',
    ]);
    await expect(agent.answer('meaning')).resolves.toBe('Forty-two. (1 request)');
    expect(server.requests).toHaveLength(1);
  });
});
