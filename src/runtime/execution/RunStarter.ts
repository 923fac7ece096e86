import { randomUUID } from 'node:crypto';
import { applyArgs } from '../../model/ArgsFunction';
import { Codec } from '../../codec/Codec';
import { assertRunId } from '../../model/identifiers';
import type { Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { RunStore } from '../../store/RunStore';
import type { RunIdentity } from './Acquisition';
import type { Executions } from './Executions';
import type { WorkflowCall } from './WorkflowCall';
import { assertSameRun, newRunRow, type RunAcquirer } from './RunAcquirer';
import type { FlowRegistry } from './FlowRegistry';
import type { RunOutcome } from './RunOutcome';
import { DEFAULT_QUEUE_PLACE, QueueAdmission, type QueuePlace } from '../../store/QueueAdmission';
import { queuePlace } from './queuePlace';
import type { StartCallOptions } from './StartCallOptions';
import type { RunTiming } from './RunTiming';
import type { RunOperations } from './RunScope';

export type { StartCallOptions } from './StartCallOptions';

/** A run that is durably recorded; `outcome` settles when this process's part in it ends. */
export interface Started {
  readonly runId: string;
  readonly outcome: Promise<RunOutcome>;
}

/** What starting runs uses. */
export interface RunStarterDeps {
  readonly store: RunStore;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly lifecycle: Lifecycle;
  readonly executions: Executions;
  readonly acquirer: RunAcquirer;
  readonly flows: FlowRegistry;
  readonly admission: QueueAdmission;
}

/** The outcome of a run queued for a worker, as seen by the process that queued it. */
const QUEUED: RunOutcome = { status: 'waiting', wakeAt: null };

/**
 * Turns a workflow call into a run: creates it (one write, claimed by this runtime), or
 * finds the stored run with that id and resumes it, returns its stored outcome, or joins
 * its execution here. Arguments that differ from the stored ones are a conflict, never a
 * resume.
 */
export class RunStarter {
  constructor(private readonly deps: RunStarterDeps) {}

  /** Starts (or finds) the run of `call`; executed here, it does `operations`. */
  async start(
    call: WorkflowCall,
    options: StartCallOptions,
    operations: RunOperations,
  ): Promise<Started> {
    const { lifecycle, codec, executions, acquirer } = this.deps;
    const workflow = call.plan;
    lifecycle.assertOpen(`start workflow "${workflow.name}"`);
    const runId = options.runId ?? deriveRunId(call);
    const identity: RunIdentity = {
      workflow: workflow.name,
      args: Codec.canonical(codec.encode(call.args, 'args')),
    };
    const timing = options.timing ?? {};
    const place =
      queuePlace(call, options, this.deps.flows) ??
      (timing.wakeAt === undefined ? undefined : DEFAULT_QUEUE_PLACE);
    if (place) return this.queue(call, runId, identity, options.parentRunId, place, timing);
    const joined = executions.find(runId);
    if (joined?.identity) assertSameRun({ id: runId, ...joined.identity }, identity);
    const tracked =
      joined ??
      executions.ensure(runId, {
        kind: 'acquire',
        identity,
        operations,
        acquire: (superseded) =>
          acquirer.create(call, runId, identity, options.parentRunId, superseded, timing),
      });
    await tracked.acquired;
    return { runId, outcome: tracked.outcome };
  }

  /** Records the run `pending` for a worker; nothing executes or watches it here. */
  private async queue(
    call: WorkflowCall,
    runId: string,
    identity: RunIdentity,
    parentRunId: string | undefined,
    place: QueuePlace,
    timing: RunTiming,
  ): Promise<Started> {
    const { store, clock } = this.deps;
    const row = newRunRow(
      runId,
      call,
      identity,
      parentRunId ?? null,
      clock.now(),
      undefined,
      timing,
    );
    const enqueued = await this.deps.admission.enqueue(row, place);
    if (enqueued.kind === 'deduplicated') {
      return { runId: enqueued.runId, outcome: Promise.resolve(QUEUED) };
    }
    if (enqueued.kind === 'exists') {
      const stored = await store.loadRun(runId);
      if (stored) assertSameRun(stored, identity);
    }
    return { runId, outcome: Promise.resolve(QUEUED) };
  }
}

function deriveRunId(call: WorkflowCall): string {
  const workflow = call.plan;
  if (!workflow.id) return randomUUID();
  const id: unknown = applyArgs(workflow.id, call.args);
  assertRunId(id, `the run id that @Workflow id of "${workflow.name}" returned`);
  return id;
}
