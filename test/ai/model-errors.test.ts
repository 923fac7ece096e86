import 'reflect-metadata';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';
import { injectable } from 'tsyringe';
import { RetriesExhaustedError, Workflow } from 'waymark';
import { classifyModelError, durableModel, durableTools, isRetryableModelError } from 'waymark/ai';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { FakeOpenAiServer, type FakeReply } from '../support/fakeOpenAi';

let server: FakeOpenAiServer;

@injectable()
class OneCall {
  @Workflow({ name: 'one-model-call', id: (id: string) => id })
  async ask(id: string, stream: boolean): Promise<string> {
    const provider = createOpenAICompatible({ name: 'fake', baseURL: server.baseURL, apiKey: 'k' });
    const model = durableModel(provider.chatModel('fake-gpt'), {
      retry: { maxAttempts: 3, backoff: { initial: '1s', factor: 2, max: '1m', jitter: 'full' } },
      timeout: '30s',
    });
    if (stream) return streamText({ model, prompt: id, maxRetries: 0 }).text;
    return (await generateText({ model, prompt: id, maxRetries: 0 })).text;
  }
}

@injectable()
class LimitedCall {
  @Workflow({ name: 'limited-model-call', id: (id: string) => id })
  async ask(id: string): Promise<string> {
    const provider = createOpenAICompatible({ name: 'fake', baseURL: server.baseURL, apiKey: 'k' });
    const model = durableModel(provider.chatModel('fake-gpt'), {
      retry: { maxAttempts: 3, backoff: { initial: '1s', factor: 2, max: '1m', jitter: 'full' } },
      limiter: 'llm',
    });
    return (await generateText({ model, prompt: id, maxRetries: 0 })).text;
  }
}

@injectable()
class LimitedTool {
  readonly lookups: string[] = [];

  @Workflow({ name: 'limited-tool-call', id: (id: string) => id })
  async ask(id: string): Promise<string> {
    const provider = createOpenAICompatible({ name: 'fake', baseURL: server.baseURL, apiKey: 'k' });
    const tools = durableTools(
      {
        lookup: tool({
          inputSchema: z.object({ order: z.string() }),
          execute: async ({ order }) => {
            this.lookups.push(order);
            return `order ${order} shipped`;
          },
        }),
      },
      { lookup: { limiter: 'orders-api' } },
    );
    const result = await generateText({
      model: durableModel(provider.chatModel('fake-gpt')),
      tools,
      prompt: id,
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    return result.text;
  }
}

/** Answers the scripted replies in order, then "ok". */
function replies(...scripted: FakeReply[]) {
  const queue = [...scripted];
  server.setScript(() => queue.shift() ?? { kind: 'text', text: 'ok' });
}

describe('model call errors from a real AI SDK client', () => {
  let runtime: TestRuntime;
  const delays: number[] = [];
  beforeAll(async () => {
    server = await FakeOpenAiServer.start(() => ({ kind: 'text', text: 'ok' }));
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(async () => {
    server.requests.length = 0;
    delays.length = 0;
    runtime = await createTestRuntime({ clock: 'fake' });
    runtime.on('step.retrying', (e) => delays.push(e.delayMs));
  });
  afterEach(async () => {
    await runtime.close();
  });

  /** Runs the workflow, moving the fake clock on through each retry's delay. */
  async function run(id: string, stream = false): Promise<string> {
    runtime.on('step.retrying', (e) => void runtime.clock.advance(e.delayMs));
    return runtime.run(OneCall, 'ask', [id, stream]);
  }

  it.each([false, true])(
    '429 with Retry-After: 2 waits 2 s, then retries (stream: %s)',
    async (stream) => {
      replies({ kind: 'error', status: 429, headers: { 'retry-after': '2' } });
      expect(await run(`r429-${stream}`, stream)).toBe('ok');
      expect(delays).toEqual([2000]);
      expect(server.requests).toHaveLength(2);
    },
  );

  it('retry-after-ms is read too', async () => {
    replies({ kind: 'error', status: 429, headers: { 'retry-after-ms': '3500' } });
    expect(await run('r429ms')).toBe('ok');
    expect(delays).toEqual([3500]);
  });

  it('a model call under a limiter: a 429 pauses the limiter until its Retry-After, and an undeclared one is named', async () => {
    await expect(runtime.run(LimitedCall, 'ask', ['no-limiter'])).rejects.toThrow(
      /names limiter "llm", which this runtime does not know/,
    );
    expect(server.requests).toHaveLength(0);
    runtime.limiter('llm', { concurrency: 1 });
    const paused: Array<{ limiter: string; until: number }> = [];
    runtime.on('limiter.paused', (e) => paused.push({ limiter: e.limiter, until: e.until }));
    runtime.on('step.retrying', (e) => void runtime.clock.advance(e.delayMs));
    replies({ kind: 'error', status: 429, headers: { 'retry-after': '2' } });
    const before = runtime.clock.now();
    expect(await runtime.run(LimitedCall, 'ask', ['limited'])).toBe('ok');
    expect(paused).toEqual([{ limiter: 'llm', until: before + 2000 }]);
    expect(server.requests).toHaveLength(2);
    expect(() =>
      durableModel(createOpenAICompatible({ name: 'f', baseURL: server.baseURL }).chatModel('m'), {
        limiter: 'two words',
      }),
    ).toThrow(/durableModel\(\): limiter must be 1–200 characters without spaces/);
  });

  it('a tool call under a limiter passes through it; under an undeclared one it fails naming it', async () => {
    const lookup = {
      kind: 'tools',
      calls: [{ id: 'c1', name: 'lookup', arguments: { order: 'o1' } }],
    } as const;
    const toolStep = async (runId: string) =>
      (await runtime.history(runId)).find((step) => step.name === 'tool:lookup');
    // The AI SDK hands a tool's failure to the model as the tool's result: the run goes on,
    // and the model's next request carries the error.
    replies(lookup, { kind: 'text', text: 'could not look it up' });
    await runtime.run(LimitedTool, 'ask', ['tool-no-limiter']);
    expect(await toolStep('tool-no-limiter')).toBeUndefined();
    expect(JSON.stringify(server.requests[1].messages)).toMatch(
      /names limiter \\"orders-api\\", which this runtime does not know/,
    );
    runtime.limiter('orders-api', { concurrency: 1 });
    replies(lookup, { kind: 'text', text: 'it shipped' });
    expect(await runtime.run(LimitedTool, 'ask', ['tool-limited'])).toBe('it shipped');
    expect(await toolStep('tool-limited')).toMatchObject({ status: 'completed' });
    const plain = tool({ inputSchema: z.object({}), execute: () => Promise.resolve('') });
    expect(() => durableTools({ lookup: plain }, { lookup: { limiter: '' } })).toThrow(
      /durableTools\(\): lookup.limiter must be 1–200 characters without spaces/,
    );
  });

  it('400 fails at once: one request, the APICallError recorded', async () => {
    replies({ kind: 'error', status: 400, message: 'bad tool schema' });
    await expect(run('r400')).rejects.toThrow('bad tool schema');
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('500 retries, and the attempts are bounded', async () => {
    replies(
      { kind: 'error', status: 500 },
      { kind: 'error', status: 500 },
      { kind: 'error', status: 500 },
    );
    const error = await run('r500').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as RetriesExhaustedError).attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
  });

  it.each([false, true])('a dropped connection retries (stream: %s)', async (stream) => {
    replies({ kind: 'drop', afterChunks: stream ? 2 : 0 });
    expect(await run(`rdrop-${stream}`, stream)).toBe('ok');
    expect(server.requests).toHaveLength(2);
    expect(delays).toHaveLength(1);
  });

  it('streamText writes its tokens to the stream "llm"; a call cut mid-stream is marked restarted', async () => {
    replies(
      { kind: 'drop', afterChunks: 3, chunkDelayMs: 80 },
      { kind: 'text', text: 'all good here', chunks: 3 },
    );
    expect(await run('rstream', true)).toBe('all good here');
    const entries = [];
    for await (const entry of runtime.readStream<string>('rstream', 'llm')) entries.push(entry);
    expect(entries.map((e) => (e.restart ? { restart: e.restart.attempt } : e.chunk))).toEqual([
      'part',
      'ial ',
      { restart: 2 },
      'all g',
      'ood h',
      'ere',
    ]);
    expect(entries.every((e) => e.seq === 0)).toBe(true);
  });

  it('a slow answer past the timeout is aborted and retried', async () => {
    replies({ kind: 'text', text: 'too late', delayMs: 60_000 });
    const slow = new Promise<void>((resolve) => server.onRequest(() => resolve()));
    const result = run('rslow');
    await slow;
    await runtime.clock.advance('30s');
    expect(await result).toBe('ok');
    expect(server.requests).toHaveLength(2);
    expect(server.completed).toHaveLength(1);
  });

  it('classifies APICallError by status, isRetryable and the cause chain', () => {
    const apiError = (statusCode: number | undefined, isRetryable: boolean) =>
      new APICallError({ message: 'x', url: 'u', requestBodyValues: {}, statusCode, isRetryable });
    expect(isRetryableModelError(apiError(429, true))).toBe(true);
    expect(isRetryableModelError(apiError(503, true))).toBe(true);
    expect(isRetryableModelError(apiError(400, false))).toBe(false);
    expect(isRetryableModelError(apiError(409, true))).toBe(false);
    expect(isRetryableModelError(apiError(undefined, true))).toBe(true);
    expect(isRetryableModelError(apiError(undefined, false))).toBe(false);
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(isRetryableModelError(new TypeError('fetch failed', { cause: reset }))).toBe(true);
    expect(classifyModelError(new TypeError('not a function')).retry).toBe(false);
  });
});
