import type { Codec } from '../codec/Codec';
import { workflowPlanOf } from '../decorators/Plans';
import { findWorkflow } from '../decorators/WorkflowRegistry';
import { RunNotFoundError } from '../errors/RunNotFoundError';
import { WorkflowNotRegisteredError } from '../errors/WorkflowNotRegisteredError';
import type { Clock } from '../ground/Clock';
import type { Lifecycle } from '../ground/Lifecycle';
import type { LeaseHolder } from '../ground/ProcessIdentity';
import { holderGone, type ClaimToken, type Leases } from '../store/Leases';
import type { RunRow } from '../store/rows';
import type { QueueAdmission } from '../store/QueueAdmission';
import type { RunStore } from '../store/RunStore';
import type { RunClaims } from '../store/RunClaims';
import type { RunIdentity } from './execution/Acquisition';
import type { Executions } from './execution/Executions';
import type { FlowRegistry } from './execution/FlowRegistry';
import type { WorkflowCall } from './execution/WorkflowCall';
import type { RunAcquirer } from './execution/RunAcquirer';
import type { RunObserver } from './execution/RunObserver';
import { unwrapOutcome, type RunOutcome } from './execution/RunOutcome';
import type { InstanceResolver } from './RuntimeOptions';
import { RunStarter, type StartCallOptions, type Started } from './RunStarter';
import { RunWaiters } from './RunWaiters';

/** What a runtime's runs are reached through. */
export interface RunsDeps {
  readonly store: RunStore;
  readonly queueAdmission: QueueAdmission;
  readonly leases: Leases;
  readonly queue: RunClaims;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly lifecycle: Lifecycle;
  readonly self: LeaseHolder;
  readonly executions: Executions;
  readonly acquirer: RunAcquirer;
  readonly observer: RunObserver;
  readonly resolveInstance: InstanceResolver;
  readonly flows: FlowRegistry;
}

const RECOVER_BATCH = 100;

/**
 * Every way into a run of this runtime, all through {@link Executions}: a workflow call,
 * `start`/`run`, a handle's `result()`, a worker's claim, an operator's claim, `recover()`.
 */
export class Runs {
  private readonly starter: RunStarter;
  private readonly waiters: RunWaiters;

  constructor(private readonly deps: RunsDeps) {
    this.starter = new RunStarter(deps);
    this.waiters = new RunWaiters({ ...deps, resume: (row, call) => this.resume(row, call) });
  }

  /** A workflow called outside any run: start, resume or read back its run; its result. */
  async callWorkflow(call: WorkflowCall): Promise<unknown> {
    return unwrapOutcome(await this.startAndAwait(call, {}));
  }

  /** Starts (or finds) the run of `call` and waits until it ends. */
  async startAndAwait(call: WorkflowCall, options: StartCallOptions): Promise<RunOutcome> {
    const started = await this.start(call, options);
    return this.waiters.await(started.runId, () => started.outcome, call);
  }

  /** Starts (or finds) the run of `call`; resolves once it is durably recorded. */
  start(call: WorkflowCall, options: StartCallOptions): Promise<Started> {
    return this.starter.start(call, options);
  }

  /** Waits until run `runId` ends, wherever it executes. */
  awaitRun(runId: string): Promise<RunOutcome> {
    const { executions, observer } = this.deps;
    const first = () => executions.find(runId)?.outcome ?? observer.observe(runId);
    return this.waiters.await(runId, first);
  }

  /** A signal for `runId` was stored here: a wait on it looks again now. */
  wake(runId: string): void {
    this.waiters.wake(runId);
  }

  /** Executes a run a worker here claimed (`row` as claimed). */
  adoptClaimed(row: RunRow, claim: ClaimToken): Promise<RunOutcome> {
    const { executions, acquirer } = this.deps;
    return executions.adopt(row.id, identityOf(row), claim, () =>
      acquirer.load(claim, this.callFor(row), false),
    ).outcome;
  }

  /** Executes, in the background, a run an operator action just claimed for this runtime. */
  adoptOperatorClaim(claim: ClaimToken): void {
    const { executions, acquirer, store, queue, clock } = this.deps;
    void executions.adopt(claim.runId, undefined, claim, async () => {
      const row = await store.loadRun(claim.runId);
      if (!row) throw new RunNotFoundError(claim.runId);
      if (!findWorkflow(row.workflow)) {
        // Not loaded here (an operator tool): hand it to a worker that has the code.
        await queue.release(claim.runId, claim.epoch, clock.now());
        return { kind: 'settled', outcome: { status: 'waiting', wakeAt: null } };
      }
      return acquirer.load(claim, this.callFor(row), false);
    });
  }

  /** Resumes runs stopped processes left behind (find, claim, history: 3 round trips each). */
  async recover(options: { versions?: string[] } = {}): Promise<string[]> {
    const { leases, self, clock, executions, acquirer } = this.deps;
    const resumed: string[] = [];
    for (const row of await leases.findRecoverable(self, clock.now(), RECOVER_BATCH)) {
      if (executions.find(row.id) || !findWorkflow(row.workflow)) continue;
      if (options.versions && !options.versions.includes(row.version ?? '')) continue;
      const tracked = executions.ensure(row.id, identityOf(row), (superseded) =>
        acquirer.fromRow(row, this.callFor(row), {
          takePending: false,
          announce: false,
          superseded,
        }),
      );
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

  /** Continues a stored run found due, joining its execution here if there is one. */
  private resume(row: RunRow, call: WorkflowCall | undefined): Promise<RunOutcome> {
    const { executions, acquirer } = this.deps;
    const acquire = (superseded: () => boolean) =>
      acquirer.fromRow(row, call ?? this.callFor(row), {
        takePending: false,
        announce: false,
        superseded,
      });
    return executions.ensure(row.id, identityOf(row), acquire).outcome;
  }

  /** The call a stored run makes: its workflow's class and method, instance and arguments. */
  private callFor(row: RunRow): WorkflowCall {
    const address = findWorkflow(row.workflow);
    if (!address) throw new WorkflowNotRegisteredError(row.workflow);
    const plan = workflowPlanOf(address.target, address.methodName)!;
    const args = this.deps.codec.decode(row.args, `run "${row.id}" args`) as unknown[];
    return { instance: this.deps.resolveInstance(address.target), plan, args };
  }
}

function identityOf(row: RunRow): RunIdentity {
  return { workflow: row.workflow, args: row.args };
}
