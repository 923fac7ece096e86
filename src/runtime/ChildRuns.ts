import type { RunOutcome } from './RunOutcome';
import type { RunScope } from './RunScope';
import type { RuntimeKernel } from './RuntimeKernel';
import type { Settled } from './invokeAttempt';
import type { StepRecords } from './StepRecords';
import type { MethodCall } from './WorkflowCall';

/**
 * A `@Workflow` called inside a run: a run of its own (id `${parent}/${seq}` unless its
 * `id` option derives one), whose outcome is recorded in the parent like a step's, so a
 * resumed parent does not start it again.
 */
export class ChildRuns {
  constructor(
    private readonly kernel: RuntimeKernel,
    private readonly records: StepRecords,
  ) {}

  async run(scope: RunScope, seq: number, call: MethodCall): Promise<unknown> {
    const { run } = scope;
    const workflow = call.policies.workflow!;
    run.assertRunnable();
    const recorded = run.history.get(seq);
    if (recorded) return this.records.replay(run, seq, workflow.name, recorded);
    await run.flush();
    const startedAt = this.kernel.clock.now();
    const runId = workflow.id ? undefined : `${run.runId}/${seq}`;
    const { launcher } = this.kernel;
    const launch = await launcher.launch(call, { runId, parentRunId: run.runId });
    const outcome: RunOutcome = await this.kernel.waiter.awaitOutcome(launch.runId, launch.outcome);
    if (outcome.status === 'needs_attention') {
      run.halt(outcome.error, 'needs_attention');
      throw outcome.error;
    }
    const settled: Settled =
      outcome.status === 'completed'
        ? { ok: true, value: outcome.result }
        : { ok: false, error: (outcome as { error: unknown }).error };
    const result = this.records.row(
      run,
      seq,
      workflow.name,
      settled,
      1,
      startedAt,
      this.kernel.clock.now(),
    );
    const stored = await this.records.record(run, result.row);
    if (stored !== result.row) return this.records.replay(run, seq, workflow.name, stored);
    if (result.settled.ok) return result.settled.value;
    throw result.settled.error;
  }
}
