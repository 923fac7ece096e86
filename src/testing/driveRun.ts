import { ConfigurationError } from '../errors/ConfigurationError';
import type { Constructor } from '../model/Constructor';
import type { AsyncMethodOf } from '../runtime/WaymarkRuntime';
import type { CrashSignals } from './CrashSignals';
import type { TestRuntime } from './TestRuntime';

/** The workflow call a crash matrix repeats. */
export interface MatrixCall<C extends object = object> {
  readonly Class: Constructor<C>;
  readonly method: AsyncMethodOf<C>;
  readonly args: unknown[];
}

/** How one attempt to take the run to its end went. */
export type RunAttempt =
  | { readonly kind: 'ended'; readonly runId: string }
  | { readonly kind: 'crashed'; readonly runId: string | undefined }
  | { readonly kind: 'stuck'; readonly runId: string; readonly waitingFor: string };

/**
 * Starts the run, or resumes it by id after a crash (a workflow without `@Workflow({ id })`
 * gets a new id on every call, so calling it again would start a second run), and drives the
 * fake clock until the run ends, sending the signals due whenever the run waits.
 */
export async function driveRun(
  runtime: TestRuntime,
  call: MatrixCall,
  knownRunId: string | undefined,
  signals: CrashSignals,
): Promise<RunAttempt> {
  // A crash before start() returned leaves a run we have no id for; the case's database holds
  // only this run (and its children).
  let runId = knownRunId ?? (await topLevelRun(runtime));
  const work = (async () => {
    const handle = await runtime.start(call.Class, call.method, call.args, { runId });
    runId = handle.runId;
    await handle.result();
  })();
  let waitingFor: string | undefined;
  try {
    waitingFor = await drive(runtime, work, () => runId, signals);
  } catch (error) {
    if (runtime.isDead) return { kind: 'crashed', runId };
    // The run ended in an error: that is its outcome, observed like a result.
    if (runId !== undefined) return { kind: 'ended', runId };
    throw error;
  }
  if (waitingFor !== undefined) return { kind: 'stuck', runId: runId!, waitingFor };
  return { kind: 'ended', runId: runId! };
}

/** Drives `work`; returns what the run waits for when only a signal nobody sends would end it. */
async function drive(
  runtime: TestRuntime,
  work: Promise<void>,
  runIdOf: () => string | undefined,
  signals: CrashSignals,
): Promise<string | undefined> {
  let settled = false;
  const done = work.then(
    () => void (settled = true),
    () => void (settled = true),
  );
  let wake: () => void = () => undefined;
  const listening = runtime.on('run.waiting', () => wake());
  try {
    while (!settled) {
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const runId = runIdOf();
      if (runId !== undefined && !runtime.isDead) {
        const step = await signals.step(runtime, runId).catch((error: unknown) => {
          if (runtime.isDead) return { kind: 'idle' as const };
          throw error;
        });
        if (step.kind === 'sent') continue;
        if (step.kind === 'stuck' && runtime.clock.pendingTimers === 0) return step.waitingFor;
      }
      if (runtime.clock.pendingTimers > 0) await runtime.clock.runNext();
      else await Promise.race([done, runtime.clock.untilSleeping(), woken]);
    }
  } finally {
    listening.dispose();
  }
  await work;
  return undefined;
}

async function topLevelRun(runtime: TestRuntime): Promise<string | undefined> {
  const { runs } = await runtime.list({ limit: 1000 });
  const top = runs.filter((run) => run.parentRunId === null);
  if (top.length > 1) {
    throw new ConfigurationError(
      `crashMatrix: the case's database holds ${top.length} runs; each case needs a fresh one`,
    );
  }
  return top[0]?.runId;
}
