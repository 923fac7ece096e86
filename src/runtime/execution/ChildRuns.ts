import type { Clock } from '../../ground/Clock';
import { childRunId } from './childRunId';
import type { Settled } from './invokeAttempt';
import type { WorkflowCall } from './WorkflowCall';
import type { RunScope } from './RunScope';
import { Stop } from './RunStop';
import type { RunStarter } from './RunStarter';
import type { RunWaiters } from './RunWaiters';
import type { StepReplay } from './StepReplay';
import type { StepRecords } from './StepRecords';

/**
 * A `@Workflow` called inside a run: a run of its own (id `${parent}/${seq}`, see {@link childRunId}, unless its
 * `id` option derives one), whose outcome is recorded in the parent like a step's, so a
 * resumed parent does not start it again.
 */
export class ChildRuns {
  constructor(
    private readonly records: StepRecords,
    private readonly clock: Clock,
    private readonly replay: StepReplay,
    private readonly starter: RunStarter,
    private readonly waiters: RunWaiters,
  ) {}

  async run(scope: RunScope, seq: number, call: WorkflowCall): Promise<unknown> {
    const { run, operations } = scope;
    const workflow = call.plan;
    run.assertRunnable();
    const recorded = run.history.get(seq);
    if (recorded) return this.replay.replay(run, seq, workflow.name, recorded);
    await run.flush();
    const startedAt = this.clock.now();
    const runId = workflow.id ? undefined : childRunId(run.runId, seq);
    // Through Executions, as every run: joined if it executes here already.
    const started = await this.starter.start(call, { runId, parentRunId: run.runId }, operations);
    const outcome = await this.waiters.await(
      started.runId,
      () => started.outcome,
      operations,
      call,
    );
    if (outcome.status === 'needs_attention') throw run.stop(Stop.attention(outcome.error));
    const settled: Settled =
      outcome.status === 'completed'
        ? { ok: true, value: outcome.result }
        : { ok: false, error: (outcome as { error: unknown }).error };
    const built = this.replay.build(
      run,
      seq,
      workflow.name,
      settled,
      1,
      startedAt,
      this.clock.now(),
      null,
    );
    const stored = await this.records.record(built.row, run);
    if (stored !== built.row) return this.replay.replay(run, seq, workflow.name, stored);
    if (built.settled.ok) return built.settled.value;
    throw built.settled.error;
  }
}
