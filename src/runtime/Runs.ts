import type { Codec } from '../codec/Codec';
import type { AnyClass } from '../decorators/metadata';
import { AlreadyDecidedError } from '../errors/AlreadyDecidedError';
import { RunNotFoundError } from '../errors/RunNotFoundError';
import type { Clock } from '../ground/Clock';
import type { LeaseHolder } from '../ground/ProcessIdentity';
import { deciderOf, decisionOf } from '../model/approvalDecision';
import { assertRunId } from '../model/identifiers';
import { holderGone, type Leases } from '../store/Leases';
import type { RunRow } from '../store/rows';
import type { RunStore } from '../store/RunStore';
import type { SignalStore } from '../store/SignalStore';
import type { RunClaims } from '../store/RunClaims';
import type { Acquisition } from './execution/Acquisition';
import type { ClaimToken, Claimed } from './execution/Claims';
import type { Executions, Slot } from './execution/Executions';
import type { RunAcquirer } from './execution/RunAcquirer';
import type { RunObserver } from './execution/RunObserver';
import { unwrapOutcome, type RunOutcome } from './execution/RunOutcome';
import type { RunOperations } from './execution/RunScope';
import type { RunStarter, StartCallOptions, Started } from './execution/RunStarter';
import type { RunWaiters } from './execution/RunWaiters';
import { identityOf, type ResolveInstance, type StoredCalls } from './execution/StoredCalls';
import type { WorkflowCall } from './execution/WorkflowCall';
import { signalKeyOf } from './signalKeyOf';
import type { SignalOptions, SignalReceipt } from './SignalOptions';
import type { StartOptions } from './StartOptions';
import { timingOf } from './startTiming';
import { workflowPlan } from './workflowPlan';

/** What a runtime's runs are reached through. */
export interface RunsDeps {
  readonly executions: Executions;
  readonly acquirer: RunAcquirer;
  readonly starter: RunStarter;
  readonly waiters: RunWaiters;
  readonly observer: RunObserver;
  readonly calls: StoredCalls;
  /** What the workflow code of every run executed here does. */
  readonly operations: RunOperations;
  readonly store: RunStore;
  readonly leases: Leases;
  readonly queue: RunClaims;
  readonly signals: SignalStore;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly self: LeaseHolder;
  readonly resolveInstance: ResolveInstance;
}

const RECOVER_BATCH = 100;

/**
 * Every way into a run of this runtime, all through {@link Executions.ensure}: a workflow
 * call, `start`/`run`, a handle's `result()`, a worker's claim, an operator's claim,
 * `recover()`; and the signals that wake runs.
 */
export class Runs {
  constructor(private readonly deps: RunsDeps) {}

  /** A workflow called outside any run: start, resume or read back its run; its result. */
  async callWorkflow(call: WorkflowCall): Promise<unknown> {
    const { starter, waiters, operations } = this.deps;
    const started = await starter.start(call, {}, operations);
    return unwrapOutcome(
      await waiters.await(started.runId, () => started.outcome, operations, call),
      started.runId,
    );
  }

  /** `runtime.start(Class, method, args, options)`: the run's id once it is durably recorded. */
  async startMethod(
    Class: AnyClass,
    method: string,
    args: unknown[],
    options: StartOptions,
  ): Promise<string> {
    if (options.runId !== undefined) assertRunId(options.runId, 'start(): runId');
    const plan = workflowPlan(Class, method);
    const instance = this.deps.resolveInstance(Class);
    const timing = timingOf(options, this.deps.clock.now());
    const started = await this.start({ instance, plan, args }, { ...options, timing });
    return started.runId;
  }

  /** Starts (or finds) the run of `call`; resolves once it is durably recorded. */
  start(call: WorkflowCall, options: StartCallOptions): Promise<Started> {
    return this.deps.starter.start(call, options, this.deps.operations);
  }

  /** Waits until run `runId` ends, wherever it executes. */
  awaitRun(runId: string): Promise<RunOutcome> {
    const { executions, observer, waiters, operations } = this.deps;
    const first = () => executions.find(runId)?.outcome ?? observer.observe(runId);
    return waiters.await(runId, first, operations);
  }

  /**
   * Stores signal `name` for `runId` (checked to exist and not to have ended); wakes its wait
   * here. With an `idempotencyKey` taken already, nothing is stored: `{ duplicate: true }`. A
   * decision (`approve:<toolCallId>`) whose request was decided already is refused with
   * {@link AlreadyDecidedError}.
   */
  async signal(
    runId: string,
    name: string,
    payload: unknown,
    options: SignalOptions | undefined,
  ): Promise<SignalReceipt> {
    const { codec, signals, clock, waiters } = this.deps;
    const key = signalKeyOf(options);
    const decision = decisionOf(name, payload);
    const encoded = codec.encode(payload, 'payload');
    const sent = await signals.send({ runId, name, payload: encoded, key, decision }, clock.now());
    if (sent.kind === 'decided') {
      const { earlier } = sent;
      const decidedBy = deciderOf(codec.decode(earlier.payload, `signal "${name}" payload`));
      throw new AlreadyDecidedError(runId, name, decidedBy, earlier.sentAt);
    }
    if (sent.kind === 'duplicate') return { duplicate: true };
    waiters.wake(runId);
    return { duplicate: false };
  }

  /** Executes a run a worker here claimed (`row` as claimed), in the worker's `slot`. */
  executeClaimed({ row, claim }: Claimed, slot: Slot): Promise<RunOutcome> {
    const { executions, acquirer, calls, operations } = this.deps;
    const load = () => acquirer.load(claim, calls.callFor(row), false);
    const identity = identityOf(row);
    return executions.ensure(row.id, { kind: 'claimed', identity, operations, claim, slot, load })
      .outcome;
  }

  /** Executes, in the background, a run an operator action just claimed for this runtime. */
  executeOperatorClaim(claim: ClaimToken): void {
    const { executions, operations } = this.deps;
    const load = () => this.loadOperatorClaim(claim);
    const entrance = { identity: undefined, operations, claim, slot: undefined, load };
    void executions.ensure(claim.runId, { kind: 'claimed', ...entrance });
  }

  /** Resumes runs stopped processes left behind (find, claim, history: 3 round trips each). */
  async recover(options: { versions?: string[] } = {}): Promise<string[]> {
    const { leases, self, clock, executions, acquirer, calls, operations } = this.deps;
    const resumed: string[] = [];
    for (const row of await leases.findRecoverable(self, clock.now(), RECOVER_BATCH)) {
      if (executions.find(row.id) || !calls.loaded(row)) continue;
      if (options.versions && !options.versions.includes(row.version ?? '')) continue;
      const tracked = executions.ensure(row.id, {
        kind: 'acquire',
        identity: identityOf(row),
        operations,
        acquire: (superseded) =>
          acquirer.fromRow(row, calls.callFor(row), {
            takePending: false,
            announce: false,
            superseded,
          }),
      });
      await tracked.acquired;
      resumed.push(row.id);
    }
    return resumed;
  }

  /**
   * `running` runs held on this host by processes (or runtimes) that no longer exist — not
   * runs whose live holder merely let its lease lapse.
   */
  async abandonedHere(): Promise<RunRow[]> {
    const { leases, self } = this.deps;
    return (await leases.findLapsedHere(self, 1000)).filter((row) => holderGone(row, self));
  }

  private async loadOperatorClaim(claim: ClaimToken): Promise<Acquisition> {
    const { store, queue, clock, acquirer, calls } = this.deps;
    const row = await store.loadRun(claim.runId);
    if (!row) throw new RunNotFoundError(claim.runId);
    if (!calls.loaded(row)) {
      // Not loaded here (an operator tool): hand it to a worker that has the code.
      await queue.release(claim.runId, claim.epoch, clock.now());
      return { kind: 'settled', outcome: { status: 'waiting', wakeAt: null } };
    }
    return acquirer.load(claim, calls.callFor(row), false);
  }
}
