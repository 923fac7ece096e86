/**
 * `npm run example:agent -- [--ticket T] [--message TEXT] [--crash-at N] [--approve CALL_ID] [--data-dir DIR]`
 *
 * Runs (or resumes) the support agent of ticket T. Against the built-in fake OpenAI server
 * unless OPENAI_API_KEY or WAYMARK_AI_BASE_URL is set (then that provider, model
 * WAYMARK_AI_MODEL, default gpt-4o-mini). `--crash-at N` kills this process with SIGKILL
 * while the model answers its Nth call (fake server only); run again to resume.
 * `--approve CALL_ID` approves a refund the run waits for, and resumes it.
 */
import 'reflect-metadata';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { parseArgs } from 'node:util';
import { container } from 'tsyringe';
import { Waymark } from 'waymark';
import { FakeOpenAiServer } from '../../test/support/fakeOpenAi';
import { fakeSupportScript } from './fakeSupportScript';
import { SUPPORT_MODEL, SupportAgent } from './SupportAgent';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ticket: { type: 'string', default: '1001' },
      message: { type: 'string', default: 'My kettle (order 1) arrived broken. Please refund it.' },
      'crash-at': { type: 'string' },
      approve: { type: 'string' },
      'data-dir': { type: 'string' },
    },
  });
  const dataDir = values['data-dir'];
  if (dataDir !== undefined)
    process.env.SUPPORT_AGENT_REFUNDS = `${dataDir}/support-agent-refunds.jsonl`;
  const real =
    process.env.OPENAI_API_KEY !== undefined || process.env.WAYMARK_AI_BASE_URL !== undefined;
  const fake = real ? undefined : await FakeOpenAiServer.start(fakeSupportScript);
  const crashAt = values['crash-at'] === undefined ? undefined : Number(values['crash-at']);
  fake?.onRequest((request) => {
    console.log(`[fake model] request ${request.index + 1} (turn ${request.turn})`);
    if (crashAt !== undefined && request.index + 1 === crashAt) {
      console.log('[crash] SIGKILL while the model answers');
      process.kill(process.pid, 'SIGKILL');
    }
  });
  const provider = createOpenAICompatible({
    name: real ? 'openai' : 'fake',
    baseURL: fake?.baseURL ?? process.env.WAYMARK_AI_BASE_URL ?? 'https://api.openai.com/v1',
    apiKey: process.env.OPENAI_API_KEY ?? 'not-needed',
    includeUsage: true,
  });
  container.register(SUPPORT_MODEL, {
    useValue: provider.chatModel(process.env.WAYMARK_AI_MODEL ?? 'gpt-4o-mini'),
  });

  const runtime = await Waymark.create({
    database:
      dataDir !== undefined
        ? `sqlite:${dataDir}/support-agent.db`
        : (process.env.DATABASE_URL ?? 'sqlite:./support-agent.db'),
  });
  runtime.on('step.replayed', (e) => console.log(`[replayed] #${e.seq} ${e.step}`));
  runtime.on('step.completed', (e) => console.log(`[step] #${e.seq} ${e.step}`));
  try {
    const runId = `ticket-${values.ticket}`;
    let handle;
    if (values.approve) {
      await runtime.signal(runId, `approve:${values.approve}`, { approved: true, by: 'cli' });
      handle = runtime.handle(runId); // awaiting it resumes the run here
    } else {
      handle = await runtime.start(SupportAgent, 'handle', [values.ticket, values.message]);
    }
    const status = await waitUntilSettled(handle);
    if (status === 'waiting') {
      const { waitingFor } = await handle.describe();
      console.log(
        `[waiting] ${runId} waits for ${waitingFor}; approve with --approve ${waitingFor?.slice('signal:approve:'.length)}`,
      );
    } else {
      console.log(`[result] ${JSON.stringify(await handle.result())}`);
    }
  } finally {
    await runtime.close();
    await fake?.close();
  }
}

async function waitUntilSettled(handle: {
  status(): Promise<string>;
  result(): Promise<unknown>;
}): Promise<string> {
  const result = handle.result().then(
    () => 'ended',
    () => 'ended',
  );
  for (;;) {
    const status = await Promise.race([
      result,
      new Promise<string>((r) => setTimeout(() => r('poll'), 100)),
    ]);
    if (status === 'ended') return 'ended';
    if ((await handle.status()) === 'waiting') return 'waiting';
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
