import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { injectable } from 'tsyringe';
import { container } from 'tsyringe';
import { Workflow } from 'waymark';
import { durableModel, durableTools } from 'waymark/ai';
import { traceRuns } from 'waymark/otel';
import { createTestRuntime, SimulatedCrash, type TestRuntime } from 'waymark/testing';
import { z } from 'zod';
import { FakeOpenAiServer, supportAgentScript } from '../support/fakeOpenAi';
import { AI_AGENT_ENV } from '../ai/support/AiAgentWorkflow';
import { AgentsSdkWorkflow } from '../ai/support/AgentsSdkWorkflow';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** Two turns: the model asks for a lookup, then answers; each turn as generate and as stream. */
const TURNS = [
  {
    content: [
      {
        type: 'tool-call' as const,
        toolCallId: 'call_1',
        toolName: 'lookupOrder',
        input: '{"orderId":"7"}',
      },
    ],
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage: usage(12, 5),
  },
  {
    content: [{ type: 'text' as const, text: 'Order 7 has shipped.' }],
    finishReason: { unified: 'stop' as const, raw: 'stop' },
    usage: usage(30, 6),
  },
];

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer P>
    ? P
    : never;

let turn = 0;
const model = new MockLanguageModelV3({
  provider: 'fake.chat',
  modelId: 'fake-gpt',
  doGenerate: async () => ({
    ...TURNS[turn++ % TURNS.length],
    warnings: [],
    response: { modelId: 'fake-gpt-2026-01' },
  }),
  doStream: async () => {
    const { content, finishReason, usage: used } = TURNS[turn++ % TURNS.length];
    const parts = [
      { type: 'response-metadata' as const, modelId: 'fake-gpt-2026-01' },
      ...content.flatMap((part) =>
        part.type === 'text'
          ? [
              { type: 'text-start' as const, id: 't' },
              { type: 'text-delta' as const, id: 't', delta: part.text },
              { type: 'text-end' as const, id: 't' },
            ]
          : [part as unknown],
      ),
      { type: 'finish' as const, finishReason, usage: used },
    ];
    const stream = new ReadableStream<StreamPart>({
      start(controller) {
        for (const part of parts) controller.enqueue(part as StreamPart);
        controller.close();
      },
    });
    return { stream };
  },
});

let lookups = 0;
let lookupFailures = 0;

@injectable()
class OrderAgent {
  @Workflow({ name: 'order-agent', id: (ticket: string) => `order-${ticket}` })
  async answer(ticket: string, mode: 'generate' | 'stream'): Promise<string> {
    const settings = {
      model: durableModel(model, { stream: false }),
      tools: durableTools(
        {
          lookupOrder: tool({
            inputSchema: z.object({ orderId: z.string() }),
            execute: async ({ orderId }) => {
              if (lookupFailures-- > 0)
                throw Object.assign(new RangeError('orders unavailable'), { status: 503 });
              return { orderId, status: `shipped (${++lookups})` };
            },
          }),
        },
        { lookupOrder: { retry: { maxAttempts: 2, backoff: { fixed: 1 } } } },
      ),
      stopWhen: stepCountIs(4),
      maxRetries: 0,
      prompt: `Ticket ${ticket}: where is order 7?`,
    };
    if (mode === 'stream') return streamText(settings).text;
    return (await generateText(settings)).text;
  }
}

describe.each(ALL_BACKENDS)('waymark/otel: GenAI spans of waymark/ai calls on %s', (backend) => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('test');
  const genAi = (): ReadableSpan[] =>
    exporter.getFinishedSpans().filter((s) => {
      const operation = s.attributes['gen_ai.operation.name'];
      return operation === 'chat' || operation === 'execute_tool';
    });

  let db: TestDatabase;
  let runtime: TestRuntime;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  beforeEach(async () => {
    exporter.reset();
    turn = 0;
    lookups = 0;
    lookupFailures = 0;
    runtime = await createTestRuntime({ database: db.url });
  });
  afterEach(async () => {
    await runtime.close();
  });
  afterAll(async () => {
    await provider.shutdown();
    await db.drop();
  });

  it.each(['generate', 'stream'] as const)(
    'with %sText, one chat span per model call and one execute_tool span, with the gen_ai attributes',
    async (mode) => {
      const tracing = traceRuns(runtime, { tracer });
      try {
        const agent = container.resolve(OrderAgent);
        await expect(agent.answer(`a-${mode}`, mode)).resolves.toBe('Order 7 has shipped.');
      } finally {
        tracing.dispose();
      }
      const spans = genAi();
      expect(spans.map((s) => [s.name, s.kind])).toEqual([
        ['chat fake-gpt', 2], // CLIENT
        ['execute_tool lookupOrder', 0], // INTERNAL
        ['chat fake-gpt', 2],
      ]);
      const [first, toolSpan, second] = spans;
      expect(first.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'fake.chat',
        'gen_ai.system': 'fake.chat',
        'gen_ai.request.model': 'fake-gpt',
        'gen_ai.response.model': 'fake-gpt-2026-01',
        'gen_ai.usage.input_tokens': 12,
        'gen_ai.usage.output_tokens': 5,
        'gen_ai.response.finish_reasons': ['tool-calls'],
        'waymark.run_id': `order-a-${mode}`,
        'waymark.step': 'model:fake-gpt',
        'waymark.seq': 0,
      });
      expect(second.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': 30,
        'gen_ai.usage.output_tokens': 6,
        'gen_ai.response.finish_reasons': ['stop'],
        'waymark.seq': 2,
      });
      expect(toolSpan.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookupOrder',
        'gen_ai.tool.call.id': 'call_1',
        'waymark.step': 'tool:lookupOrder',
        'waymark.seq': 1,
      });
      // Each call's span is a child of its step attempt's span, a child of the run's span,
      // which is the agent's invocation.
      const finished = exporter.getFinishedSpans();
      const run = finished.find((s) => s.name === 'invoke_agent order-agent');
      expect(run?.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'order-agent',
        'waymark.run_id': `order-a-${mode}`,
      });
      const steps = finished.filter((s) => s.name.startsWith('waymark.step'));
      for (const span of spans) {
        const parent = steps.find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
        expect(parent?.attributes['waymark.seq']).toBe(span.attributes['waymark.seq']);
        expect(parent?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
      }
    },
  );

  it('a run resumed after its first model call makes no second span for the recorded call', async () => {
    runtime.crash.afterCommit('model:fake-gpt');
    let tracing = traceRuns(runtime, { tracer });
    await expect(container.resolve(OrderAgent).answer('b', 'generate')).rejects.toThrow(
      SimulatedCrash,
    );
    tracing.dispose();
    expect(genAi().map((s) => s.name)).toEqual(['chat fake-gpt']);

    runtime = await runtime.restart();
    tracing = traceRuns(runtime, { tracer });
    try {
      await expect(container.resolve(OrderAgent).answer('b', 'generate')).resolves.toBe(
        'Order 7 has shipped.',
      );
    } finally {
      tracing.dispose();
    }
    expect(genAi().map((s) => [s.name, s.attributes['waymark.seq']])).toEqual([
      ['chat fake-gpt', 0],
      ['execute_tool lookupOrder', 1],
      ['chat fake-gpt', 2],
    ]);
    expect(lookups).toBe(1);
    // The resumed execution's run span marks the replayed call instead.
    const resumed = exporter
      .getFinishedSpans()
      .find((s) => s.name === 'invoke_agent order-agent' && s.attributes['waymark.resumed']);
    expect(resumed?.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'waymark.replayed',
        {
          'gen_ai.operation.name': 'chat',
          'waymark.step': 'model:fake-gpt',
          'waymark.seq': 0,
          'waymark.replayed': true,
        },
      ],
    ]);
  });
  it('a tool call whose first attempt failed has a span per attempt, the first with its error', async () => {
    lookupFailures = 1;
    const tracing = traceRuns(runtime, { tracer });
    try {
      await container.resolve(OrderAgent).answer('c', 'generate');
    } finally {
      tracing.dispose();
    }
    const tools = genAi().filter((s) => s.name === 'execute_tool lookupOrder');
    expect(tools.map((s) => [s.attributes['waymark.attempt'], s.status.code])).toEqual([
      [1, 2], // ERROR
      [2, 1], // OK
    ]);
    expect(tools[0].attributes['error.type']).toBe('RangeError');
    expect(tools[0].events.map((e) => e.name)).toEqual(['exception']);
  });

  it('an @openai/agents run gets a chat span per model call and an execute_tool span per tool call', async () => {
    const server = await FakeOpenAiServer.start(supportAgentScript({ lookups: 1 }));
    const scope = container.createChildContainer();
    scope.register(AI_AGENT_ENV, { useValue: { baseURL: server.baseURL, effect: () => {} } });
    const tracing = traceRuns(runtime, { tracer });
    try {
      await scope.resolve(AgentsSdkWorkflow).answer('g1');
    } finally {
      tracing.dispose();
      await server.close();
    }
    const spans = genAi();
    expect(spans.map((s) => s.name)).toEqual([
      'chat fake-gpt',
      'execute_tool lookupOrder',
      'chat fake-gpt',
      'execute_tool refund',
      'chat fake-gpt',
    ]);
    expect(spans[0].attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'fake-gpt',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 5,
    });
    expect(spans[1].attributes['gen_ai.tool.call.id']).toBe('call_lookup_1');
  });
});
