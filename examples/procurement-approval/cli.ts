import type { DependencyContainer } from 'tsyringe';
import type { WaymarkRuntime } from 'waymark';
import { ERP, FakeErp, FakeLlm, LLM } from './fakes';

/** The database the walkthrough's programs share: `WAYMARK_DATABASE_URL`, or a file here. */
export const DATABASE_URL = process.env.WAYMARK_DATABASE_URL ?? 'sqlite:./procurement.db';

/**
 * The fake ERP's file: `PROCUREMENT_ERP_FILE`, or next to the SQLite database. Every program
 * must see the same ERP, as they would see one real ERP over the network.
 */
export const ERP_FILE =
  process.env.PROCUREMENT_ERP_FILE ??
  (DATABASE_URL.startsWith('sqlite:') && DATABASE_URL !== 'sqlite::memory:'
    ? `${DATABASE_URL.slice('sqlite:'.length).replace(/\.db$/, '')}.erp.json`
    : './procurement.erp.json');

/** Registers the fakes the agent injects. The model is rate-limited once, to show a retry. */
export function registerFakes(container: DependencyContainer): void {
  container.registerInstance(LLM, new FakeLlm({ rateLimitedCalls: 1 }));
  container.registerInstance(ERP, new FakeErp({ file: ERP_FILE }));
}

/** Prints one line per run and step event of `runtime`. */
export function printEvents(runtime: WaymarkRuntime): void {
  runtime.on('run.started', ({ runId, workflow }) => print(runId, `started (${workflow})`));
  runtime.on('run.resumed', ({ runId, recordedSteps }) =>
    print(runId, `resumed here, ${recordedSteps} records in its history`),
  );
  runtime.on('step.replayed', ({ runId, step }) =>
    print(runId, `${step.padEnd(16)} recorded earlier: not run again`),
  );
  runtime.on('step.retrying', ({ runId, step, attempt, delayMs, error }) =>
    print(
      runId,
      `${step.padEnd(16)} ${describeError(error)}; attempt ${attempt + 1} in ${seconds(delayMs)}`,
    ),
  );
  runtime.on('step.completed', ({ runId, step, durationMs }) =>
    print(runId, `${step.padEnd(16)} done (${durationMs} ms)`),
  );
  runtime.on('step.failed', ({ runId, step, error }) =>
    print(runId, `${step.padEnd(16)} ${describeError(error)}`),
  );
  runtime.on('run.waiting', ({ runId, wakeAt }) =>
    print(
      runId,
      `waiting, held by no process; due on a signal` +
        (wakeAt === null ? '' : ` or at ${new Date(wakeAt).toISOString()}`),
    ),
  );
  runtime.on('run.completed', ({ runId }) => {
    runtime
      .handle(runId)
      .result()
      .then(
        (result) => print(runId, `completed: ${JSON.stringify(result)}`),
        () => undefined,
      );
  });
  runtime.on('run.failed', ({ runId, error }) => print(runId, `failed: ${describeError(error)}`));
  runtime.on('run.needs_attention', ({ runId, error }) =>
    print(runId, `needs attention: ${describeError(error)}`),
  );
}

/** Writes `text` under the run's id. */
export function print(runId: string, text: string): void {
  process.stdout.write(`[${runId}] ${text}\n`);
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
