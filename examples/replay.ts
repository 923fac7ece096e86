/** The replay guide's example, as a program: run once, then replay it with a corrected step. */
import 'reflect-metadata';
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { injectable } from 'tsyringe';
import { Step, Waymark, Workflow } from 'waymark';
import { durableModel } from 'waymark/ai';

let calls = 0;
// Stands in for a real model: answers "re: <prompt>", counting the calls really made.
const model = durableModel(
  new MockLanguageModelV3({
    modelId: 'demo',
    doGenerate: ({ prompt }) => {
      calls++;
      return Promise.resolve({
        content: [{ type: 'text', text: `re: ${JSON.stringify(prompt.at(-1)?.content)}` }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      });
    },
  }),
);

@injectable()
class Briefing {
  @Workflow({ name: 'briefing', id: (topic: string) => `briefing-${topic}` })
  async write(topic: string): Promise<string> {
    const facts = await this.facts(topic); // seq 0
    const title = await generateText({ model, maxRetries: 0, prompt: `Title: ${topic}` }); // seq 1
    const body = await generateText({ model, maxRetries: 0, prompt: `Summarize: ${facts}` }); // seq 2
    return `${title.text} / ${body.text}`;
  }

  @Step()
  async facts(topic: string): Promise<string> {
    return `old facts about ${topic}`;
  }
}

async function main(): Promise<void> {
  const runtime = await Waymark.create({ database: process.env.WAYMARK_DATABASE_URL! });
  try {
    await runtime.run(Briefing, 'write', ['tides']);
    // From the first model call on, with step 0's result corrected.
    const { report } = await runtime.replay('briefing-tides', {
      from: 1,
      override: { 0: 'new facts about tides' },
    });
    console.log(`changed: ${report.result.changed}`);
    console.log(`steps that differ: ${report.steps.map((s) => `#${s.seq} ${s.name}`).join(', ')}`);
    console.log(
      `model calls replayed ${report.modelCalls.replayed.join()}, called ${report.modelCalls.called.join()}`,
    );
    console.log(`models called in all: ${calls}`);
  } finally {
    await runtime.close();
  }
}

void main();
