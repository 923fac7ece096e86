import { generateText, simulateReadableStream, streamText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { container as rootContainer, injectable, type DependencyContainer } from 'tsyringe';
import { Step, Workflow } from 'waymark';
import { durableModel } from 'waymark/ai';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';

/** A model that answers "re: <prompt>" and counts the calls really made. */
class FakeModel {
  readonly prompts: string[] = [];
  readonly model = new MockLanguageModelV3({
    modelId: 'fake-1',
    doGenerate: ({ prompt }) => {
      const text = JSON.stringify(prompt.at(-1)?.content);
      this.prompts.push(text);
      return Promise.resolve({
        content: [{ type: 'text', text: `re: ${text}` }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      });
    },
    doStream: ({ prompt }) => {
      const text = JSON.stringify(prompt.at(-1)?.content);
      this.prompts.push(text);
      return Promise.resolve({
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start' as const, warnings: [] },
            { type: 'text-start' as const, id: 't' },
            { type: 'text-delta' as const, id: 't', delta: `re: ${text}` },
            { type: 'text-end' as const, id: 't' },
            {
              type: 'finish' as const,
              finishReason: { unified: 'stop' as const, raw: 'stop' },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
            },
          ],
        }),
      });
    },
  });
}

/** seq 0 facts, 1 a title (from the topic), 2 a summary (from the facts), 3 publish. */
@injectable()
class Brief {
  constructor(private readonly fake: FakeModel) {}

  @Workflow({ name: 'brief', id: (topic: string) => `brief-${topic}` })
  async write(topic: string): Promise<string> {
    const model = durableModel(this.fake.model);
    const facts = await this.facts(topic);
    const title = await generateText({ model, maxRetries: 0, prompt: `Title for ${topic}` });
    const summary = await generateText({ model, maxRetries: 0, prompt: `Summarize: ${facts}` });
    return this.publish(title.text, summary.text);
  }

  /** The same, with the summary streamed (`streamText`). */
  @Workflow({ name: 'brief-streamed', id: (topic: string) => `streamed-${topic}` })
  async stream(topic: string): Promise<string> {
    const model = durableModel(this.fake.model, { stream: false });
    const facts = await this.facts(topic);
    const title = await streamText({ model, maxRetries: 0, prompt: `Title for ${topic}` }).text;
    const summary = await streamText({ model, maxRetries: 0, prompt: `Summarize: ${facts}` }).text;
    return this.publish(title, summary);
  }

  @Step()
  async facts(topic: string): Promise<string> {
    return `facts about ${topic}`;
  }

  @Step()
  async publish(title: string, summary: string): Promise<string> {
    return `${title} | ${summary}`;
  }
}

describe.each(ALL_BACKENDS)('replay on %s', (backend) => {
  let db: TestDatabase;
  let runtime: TestRuntime;
  let scope: DependencyContainer;
  let fake: FakeModel;
  let n = 0;
  const topic = (): string => `${backend}-${++n}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    scope = rootContainer.createChildContainer();
    fake = new FakeModel();
    scope.registerInstance(FakeModel, fake);
    runtime = await createTestRuntime({ database: db.url, container: scope });
  });
  afterEach(async () => {
    await runtime.close({ grace: 100 });
  });

  it('an override changes the result downstream and leaves the original as it was', async () => {
    const t = topic();
    const original = await scope.resolve(Brief).write(t);
    const runId = `brief-${t}`;
    const before = await runtime.history(runId);
    const described = await runtime.handle(runId).describe({ valueChars: Infinity });

    const { run, report } = await runtime.replay<string>(runId, {
      from: 1,
      override: { 0: 'facts, corrected' },
      runId: `${runId}-v2`,
    });

    expect(await runtime.history(runId)).toEqual(before);
    expect(await runtime.handle(runId).describe({ valueChars: Infinity })).toEqual(described);
    const after = await run.result();
    expect(after).toContain('facts, corrected');
    expect(report).toMatchObject({
      sourceRunId: runId,
      runId: `${runId}-v2`,
      fromSeq: 1,
      status: { before: 'completed', after: 'completed' },
      result: { before: original, after, changed: true },
    });
    expect(report.steps.map((s) => [s.seq, s.name])).toEqual([
      [0, 'facts'],
      [2, 'model:fake-1'],
      [3, 'publish'],
    ]);
    expect(report.steps[0]).toMatchObject({
      before: `facts about ${t}`,
      after: 'facts, corrected',
    });
  });

  it('a model call whose input changed is called again, an unchanged one is answered from the recording', async () => {
    const t = topic();
    await scope.resolve(Brief).write(t);
    expect(fake.prompts).toHaveLength(2);

    const { report } = await runtime.replay(`brief-${t}`, {
      from: 1,
      override: { 0: 'other facts' },
    });

    expect(report.modelCalls).toEqual({ replayed: [1], called: [2] });
    expect(fake.prompts).toHaveLength(3);
    expect(fake.prompts[2]).toContain('other facts');
  });

  it('a streamed model call is answered from the recording the same way', async () => {
    const t = topic();
    const original = await scope.resolve(Brief).stream(t);
    expect(original).toContain(`facts about ${t}`);

    const { run, report } = await runtime.replay<string>(`streamed-${t}`, {
      from: 1,
      override: { 0: 'other facts' },
    });

    expect(await run.result()).toContain('other facts');
    expect(report.modelCalls).toEqual({ replayed: [1], called: [2] });
    expect(fake.prompts).toHaveLength(3);
  });

  it('callModels: true calls every model again, unchanged input or not', async () => {
    const t = topic();
    await scope.resolve(Brief).write(t);

    const { report } = await runtime.replay(`brief-${t}`, { from: 1, callModels: true });

    expect(report.modelCalls).toEqual({ replayed: [], called: [1, 2] });
    expect(fake.prompts).toHaveLength(4);
    expect(report.result.changed).toBe(false);
    expect(report.steps).toEqual([]);
  });

  it('an override of a seq no step was recorded at is refused before anything is written', async () => {
    const t = topic();
    await scope.resolve(Brief).write(t);
    await expect(
      runtime.replay(`brief-${t}`, { from: 1, override: { 9: 'x' }, runId: `brief-${t}-bad` }),
    ).rejects.toThrow(/override\[9\] names no step/);
    await expect(runtime.handle(`brief-${t}-bad`).status()).rejects.toThrow(/no run with id/);
  });
});
