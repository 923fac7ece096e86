import type { StepEnvironment } from './StepEnvironment';
import { encodeError } from '../../codec/errorSnapshot';
import { SignalTimeoutError } from '../../errors/SignalTimeoutError';
import { sleepUnless } from '../../ground/Clock';
import type { StepRow } from '../../store/rows';
import type { SignalStore } from '../../store/SignalStore';
import type { RunState } from './RunState';
import { Stop } from './RunStop';
import type { StepReplay } from './StepReplay';
import type { StepRecords } from './StepRecords';
import { endedRow, stepRow } from './stepRow';

/** What durable waits use. */
export interface DurableWaitsDeps extends StepEnvironment {
  readonly replay: StepReplay;
  readonly records: StepRecords;
  readonly signals: SignalStore;
}

/** The record of a wait at `seq` that has begun and not ended. */
function waitRecord(run: RunState, seq: number, name: string, startedAt: number): StepRow {
  return stepRow({
    ...{ runId: run.runId, seq, name, status: 'started', output: null, attempts: 1 },
    ...{ startedAt, finishedAt: null, idempotencyKey: null },
  });
}

/**
 * Waits that survive restarts: `ctx.waitForSignal()` and `ctx.sleep()`. Each is a record at
 * its sequence number: `started` (with its start time, so a deadline is fixed once) until it
 * ends, then its outcome. A wait that is not over releases the run to `waiting` — its lease
 * and its memory — and the run resumes in any process once a signal or its time comes.
 */
export class DurableWaits {
  constructor(private readonly deps: DurableWaitsDeps) {}

  async waitForSignal(
    run: RunState,
    seq: number,
    name: string,
    timeoutMs: number | undefined,
  ): Promise<unknown> {
    const step = `signal:${name}`;
    const recorded = this.pending(run, seq, step);
    if (recorded && recorded.status !== 'started')
      return this.deps.replay.replay(run, seq, step, recorded);
    await run.flush();
    const { clock, codec, events, hooks } = this.deps;
    const point = { runId: run.runId, seq, step, target: step };
    hooks.beforeStep?.(point);
    const startedAt = recorded?.startedAt ?? clock.now();
    const deadline = timeoutMs === undefined ? null : startedAt + timeoutMs;
    const row = waitRecord(run, seq, step, startedAt);
    for (;;) {
      const payload = await this.deps.signals.take(
        endedRow(row, row.status, row.output, clock.now()),
        name,
        run.epoch,
        recorded !== undefined,
      );
      if (payload !== undefined) {
        hooks.afterCommit?.(point);
        events.emit('step.completed', {
          runId: run.runId,
          seq,
          step,
          durationMs: clock.now() - startedAt,
        });
        return codec.decode(payload, `signal "${name}" payload`);
      }
      if (deadline !== null && clock.now() >= deadline) {
        const error = new SignalTimeoutError(run.runId, name, timeoutMs!);
        await this.finish(
          run,
          endedRow(row, 'failed', encodeError(codec, error), clock.now()),
          recorded !== undefined,
        );
        events.emit('step.failed', {
          runId: run.runId,
          seq,
          step,
          durationMs: clock.now() - startedAt,
          error,
        });
        throw error;
      }
      const intent = recorded ? undefined : row;
      if (
        await this.deps.signals.suspend(intent, run.runId, name, run.epoch, deadline, clock.now())
      ) {
        return this.suspended(run, deadline);
      }
    }
  }

  async sleep(run: RunState, seq: number, ms: number): Promise<void> {
    const step = 'sleep';
    const recorded = this.pending(run, seq, step);
    if (recorded && recorded.status !== 'started') {
      this.deps.replay.replay(run, seq, step, recorded);
      return;
    }
    await run.flush();
    const { clock, store, lifecycle, codec, hooks } = this.deps;
    const point = { runId: run.runId, seq, step, target: step };
    hooks.beforeStep?.(point);
    const startedAt = recorded?.startedAt ?? clock.now();
    const row = waitRecord(run, seq, step, startedAt);
    if (!recorded) await store.insertStep(row, run.epoch);
    const dueAt = startedAt + ms;
    const remaining = dueAt - clock.now();
    if (remaining > this.deps.durableDelayMs) {
      await store.suspendRun(run.runId, run.epoch, dueAt, step, clock.now());
      return this.suspended(run, dueAt);
    }
    if (remaining > 0)
      await sleepUnless(clock, remaining, lifecycle.signal, run.cancellation.signal);
    const ended = endedRow(row, 'completed', codec.encode(undefined, 'result'), clock.now());
    await store.completeIntent(ended, run.epoch);
    hooks.afterCommit?.(point);
  }

  /** The record at `seq`, if any, after checking the code still waits there. */
  private pending(run: RunState, seq: number, step: string): StepRow | undefined {
    run.assertRunnable();
    const recorded = run.history.get(seq);
    if (recorded) this.deps.replay.checkName(run, seq, step, recorded);
    return recorded;
  }

  private async finish(run: RunState, row: StepRow, overIntent: boolean): Promise<void> {
    if (overIntent) await this.deps.store.completeIntent(row, run.epoch);
    else await this.deps.records.record(row, run);
  }

  private suspended(run: RunState, wakeAt: number | null): never {
    throw run.stop(Stop.suspended(run.runId, wakeAt));
  }
}
