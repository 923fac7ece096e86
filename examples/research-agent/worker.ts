/**
 * One worker process of the crash-and-resume demo: runs `research(topic)` on a SQLite file
 * and prints one line per step, e.g.
 *
 * ```text
 *   ran      plan         (231 ms)
 *   skipped  searchWeb    (checkpointed before the crash)
 * ```
 *
 * Usage: `node -r @swc-node/register examples/research-agent/worker.ts <sqlite-file> [topic]`
 *
 * @module
 */
import 'reflect-metadata';
import { container } from 'tsyringe';
import { Waymark } from 'waymark';
import { FakeLlm, LLM } from './Llm';
import { ResearchAgent } from './ResearchAgent';

/** The topic researched when none is given on the command line. */
export const DEFAULT_TOPIC = 'durable execution for AI agents';

async function main(): Promise<void> {
  const [file, topic = DEFAULT_TOPIC] = process.argv.slice(2);
  if (!file) throw new Error('usage: worker.ts <sqlite-file> [topic]');

  container.register(LLM, { useClass: FakeLlm });
  // Default options, as a user runs it: the restarted process finds the run held by a process
  // of this host that no longer exists, and takes it over at once.
  const runtime = await Waymark.create({ database: `sqlite:${file}` });
  runtime.on('run.started', ({ runId }) => print('run', `${runId} started`));
  runtime.on('run.resumed', ({ runId, recordedSteps }) =>
    print('run', `${runId} resumed: ${recordedSteps} steps already checkpointed`),
  );
  runtime.on('step.completed', ({ step, durationMs }) =>
    print('ran', `${step.padEnd(12)} (${durationMs} ms)`),
  );
  runtime.on('step.replayed', ({ step }) =>
    print('skipped', `${step.padEnd(12)} (checkpointed before the crash)`),
  );
  try {
    const report = await container.resolve(ResearchAgent).research(topic);
    print('result', JSON.stringify(report));
  } finally {
    await runtime.close();
  }
}

function print(what: string, text: string): void {
  process.stdout.write(`  ${what.padEnd(8)} ${text}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
