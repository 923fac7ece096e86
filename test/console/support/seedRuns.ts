import { Waymark, type Logger, type WaymarkRuntime } from 'waymark';
import { ConsoleShop } from '../fixtures/ConsoleShop';

/** The ids of the runs {@link seedRuns} leaves in the database. */
export interface SeededRuns {
  /** Completed after its search step took three attempts and a short sleep. */
  completed: string;
  /** Failed: its charge step threw on each of three attempts. */
  failed: string;
  /** Waiting for signal "approval". */
  waiting: string;
  /** Completed with the result `SCRIPT_PAYLOAD`. */
  markup: string;
}

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** A runtime on a fresh in-memory SQLite database. */
export function openRuntime(): Promise<WaymarkRuntime> {
  return Waymark.create({ database: 'sqlite::memory:', logger: quiet });
}

/** Starts one run of each kind and returns once each has settled where the tests expect it. */
export async function seedRuns(runtime: WaymarkRuntime, tag: string): Promise<SeededRuns> {
  await runtime.run(ConsoleShop, 'research', [tag]);
  await expect(runtime.run(ConsoleShop, 'charge', [tag])).rejects.toThrow('card declined');
  await runtime.run(ConsoleShop, 'echo', [tag]);
  const waiting = await runtime.start(ConsoleShop, 'approve', [tag]);
  await waitForStatus(runtime, waiting.runId, 'waiting');
  return {
    completed: `research-${tag}`,
    failed: `charge-${tag}`,
    waiting: waiting.runId,
    markup: `echo-${tag}`,
  };
}

/** Polls the run's stored status until it is `status`; fails after `timeoutMs`. */
export async function waitForStatus(
  runtime: WaymarkRuntime,
  runId: string,
  status: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await runtime.handle(runId).status();
    if (now === status) return;
    if (Date.now() > deadline) throw new Error(`run ${runId} is ${now}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
