/**
 * `node -r @swc-node/register bench/ai.ts [calls]`: what `durableModel` adds to a model call.
 *
 * Against the fake OpenAI-compatible server on 127.0.0.1 (test/support/fakeOpenAi), in one
 * process, interleaved round by round: `calls` unwrapped `generateText` calls; the same
 * calls through `durableModel` as steps of one run (SQLite file, waymark's defaults); and,
 * as the baseline of "one checkpoint write", a run of `calls` empty `@Step`s. Prints the
 * medians per call and the added time per call over the unwrapped one.
 */
import 'reflect-metadata';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText } from 'ai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container, injectable } from 'tsyringe';
import { Step, Waymark, Workflow } from 'waymark';
import { durableModel } from 'waymark/ai';
import { FakeOpenAiServer } from '../test/support/fakeOpenAi';

const CALLS = Number(process.argv[2] ?? 200);
const ROUNDS = 5;
let baseURL = '';

function model() {
  return createOpenAICompatible({ name: 'fake', baseURL, apiKey: 'k' }).chatModel('fake-gpt');
}

@injectable()
class Bench {
  @Workflow({ name: 'bench-ai-durable' })
  async durable(n: number): Promise<number> {
    const wrapped = durableModel(model());
    for (let i = 0; i < n; i++)
      await generateText({ model: wrapped, prompt: `q${i}`, maxRetries: 0 });
    return n;
  }

  @Workflow({ name: 'bench-ai-steps' })
  async steps(n: number): Promise<number> {
    for (let i = 0; i < n; i++) await this.empty(i);
    return n;
  }

  @Step()
  async empty(i: number): Promise<number> {
    return i;
  }
}

async function unwrapped(n: number): Promise<void> {
  const plain = model();
  for (let i = 0; i < n; i++) await generateText({ model: plain, prompt: `q${i}`, maxRetries: 0 });
}

async function perCall(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6 / CALLS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const server = await FakeOpenAiServer.start(() => ({ kind: 'text', text: 'ok' }));
  baseURL = server.baseURL;
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-ai-'));
  const runtime = await Waymark.create({ database: `sqlite:${join(dir, 'bench.db')}` });
  const bench = container.resolve(Bench);
  const plain: number[] = [];
  const durable: number[] = [];
  const steps: number[] = [];
  try {
    await unwrapped(20); // warm-up: sockets, JIT
    await bench.durable(20);
    for (let round = 0; round < ROUNDS; round++) {
      plain.push(await perCall(() => unwrapped(CALLS)));
      durable.push(await perCall(() => bench.durable(CALLS)));
      steps.push(await perCall(() => bench.steps(CALLS)));
    }
  } finally {
    await runtime.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const [p, d, s] = [median(plain), median(durable), median(steps)];
  console.log(`model calls per run: ${CALLS}, rounds: ${ROUNDS} (medians, ms per call)`);
  console.log(`unwrapped generateText:            ${p.toFixed(3)}`);
  console.log(`durableModel generateText in a run: ${d.toFixed(3)}`);
  console.log(`empty @Step (one checkpoint write): ${s.toFixed(3)}`);
  console.log(
    `added per model call:               ${(d - p).toFixed(3)} (${((d - p) / s).toFixed(2)}× one step; ${(d - p - s).toFixed(3)} ms beyond it)`,
  );
}

void main();
