import type { Clock } from '../../ground/Clock';
import type { ChildRuns } from './ChildRuns';
import type { DurableWaits } from './DurableWaits';
import type { HandOver } from './HandOver';
import type { StepCall } from './StepCall';
import type { WorkflowCall } from './WorkflowCall';
import type { RecordedValues } from './RecordedValues';
import type { AiCall } from '../../model/AiCall';
import { RunScope, type RunOperations, type StepFrame } from './RunScope';
import type { RuntimeEvents } from './RuntimeEvents';
import type { StepPath } from './StepPath';
import type { ReplaySources } from './ReplaySources';
import type { Streams } from '../streams/Streams';
import type { StreamWriter } from '../streams/StreamWriter';
import type { StreamAuthor } from '../streams/StreamBuffer';

/**
 * What workflow code does in a run, each taking its sequence number synchronously at the
 * call (so `Promise.all` order is the call order), then handed to the part that does it.
 */
export class WorkflowOperations implements RunOperations {
  constructor(
    readonly clock: Clock,
    private readonly steps: StepPath,
    private readonly children: ChildRuns,
    private readonly waits: DurableWaits,
    private readonly values: RecordedValues,
    private readonly handOver: HandOver,
    readonly streams: Streams,
    private readonly events: Pick<RuntimeEvents, 'emit'>,
    private readonly replaySources: ReplaySources,
  ) {}

  step(scope: RunScope, call: StepCall): Promise<unknown> {
    return this.steps.call(scope, scope.run.nextSeq(), call);
  }

  child(scope: RunScope, call: WorkflowCall): Promise<unknown> {
    return this.children.run(scope, scope.run.nextSeq(), call);
  }

  waitForSignal(scope: RunScope, name: string, timeoutMs: number | undefined): Promise<unknown> {
    const seq = scope.run.nextSeq();
    return this.handOver
      .atBoundary(scope.run)
      .then(() => this.waits.waitForSignal(scope.run, seq, name, timeoutMs));
  }

  sleep(scope: RunScope, ms: number): Promise<void> {
    const seq = scope.run.nextSeq();
    return this.handOver.atBoundary(scope.run).then(() => this.waits.sleep(scope.run, seq, ms));
  }

  record<T>(scope: RunScope, name: string, produce: () => T): T {
    return this.values.record(scope.run, name, produce);
  }

  patched(scope: RunScope, id: string): boolean {
    return this.values.patched(scope.run, id);
  }

  deprecatePatch(scope: RunScope, id: string): void {
    this.values.deprecatePatch(scope.run, id);
  }

  stream<T>(scope: RunScope, name: string): StreamWriter<T> {
    return this.streams.writer<T>(scope.run, name, currentAuthor);
  }

  reportAiCall(scope: RunScope, step: StepFrame, call: AiCall): void {
    const { runId } = scope.run;
    this.events.emit('ai.call', {
      runId,
      seq: step.seq,
      step: step.name,
      attempt: step.attempt,
      call,
    });
  }

  answerFromSource(scope: RunScope, matches: (recorded: unknown) => boolean): Promise<unknown> {
    const { step } = scope;
    if (!step) return Promise.resolve(undefined);
    return this.replaySources.answer(scope.run.runId, step.seq, step.name, matches);
  }
}

/** The step executing in the caller's async context, as a stream's writer names it. */
function currentAuthor(): StreamAuthor | null {
  const step = RunScope.current()?.step;
  return step ? { seq: step.seq, step: step.name, attempt: step.attempt } : null;
}
