import { randomUUID } from 'node:crypto';
import { readMethodPolicies, type MethodPolicies } from '../decorators/metadata';
import { validateClassPolicies } from '../decorators/validateClassPolicies';
import { findWorkflow } from '../decorators/WorkflowRegistry';
import { ConfigurationError } from '../errors/ConfigurationError';
import { RunConflictError } from '../errors/RunConflictError';
import { WorkflowNotRegisteredError } from '../errors/WorkflowNotRegisteredError';
import { Codec } from '../codec/Codec';
import type { AttemptRow, RunRow } from '../store/rows';
import { RunNotFoundError } from '../errors/RunNotFoundError';
import { ActiveRun } from './ActiveRun';
import type { RunOutcome } from './RunOutcome';
import type { RuntimeKernel } from './RuntimeKernel';
import type { MethodCall } from './WorkflowCall';
import { storedOutcome, waitForStoredOutcome } from './waitForStoredOutcome';

/** A run this process knows about: it exists in the store, and `outcome` settles when it ends here. */
export interface Launch {
  readonly runId: string;
  /** True when this call created the run. */
  readonly created: boolean;
  readonly outcome: Promise<RunOutcome>;
}

/** Options of one launch. */
export interface LaunchOptions {
  runId?: string;
  parentRunId?: string;
  /** Record the run as `pending` for a worker instead of executing it here. */
  queue?: boolean;
}

interface InFlight {
  readonly workflow: string;
  readonly args: string;
  readonly launch: Promise<Launch>;
  /** Taken over by an operator action: no caller arguments to compare with. */
  readonly adopted?: boolean;
}

const MAX_RUN_ID_LENGTH = 255;

/** The outcome of a run queued for a worker, as seen by the process that queued it. */
const QUEUED: Promise<RunOutcome> = Promise.resolve({ status: 'waiting', wakeAt: null });

/**
 * Turns a workflow call into a run: creates it (one write), or finds the stored run with
 * that id and resumes it, returns its stored outcome, or joins its execution in this
 * process. Arguments that differ from the stored ones are a conflict, never a resume.
 */
export class RunLauncher {
  private readonly inFlight = new Map<string, InFlight>();
  private readonly active = new Map<string, ActiveRun>();

  constructor(private readonly kernel: RuntimeKernel) {}

  async launch(call: MethodCall, options: LaunchOptions = {}): Promise<Launch> {
    const workflow = call.policies.workflow!;
    this.kernel.lifecycle.assertOpen(`start workflow "${workflow.name}"`);
    validateClassPolicies(call.declaringClass);
    const runId = options.runId ?? this.deriveRunId(call);
    const args = Codec.canonical(this.kernel.codec.encode(call.args, 'args'));
    const joined = this.inFlight.get(runId);
    if (joined) {
      if (!joined.adopted) this.assertSameRun(runId, joined, workflow.name, args);
      return joined.launch;
    }
    const launch = this.begin(call, runId, args, options);
    if (!options.queue) this.track(runId, { workflow: workflow.name, args, launch });
    return launch;
  }

  private track(runId: string, entry: InFlight): void {
    this.inFlight.set(runId, entry);
    const forget = (): void => {
      if (this.inFlight.get(runId) === entry) this.inFlight.delete(runId);
    };
    entry.launch.then((l) => l.outcome.then(forget, forget), forget);
  }

  /** Resumes a stored run from its row alone: class, instance and arguments are looked up. */
  async resumeStored(row: RunRow): Promise<Launch> {
    const call = this.callFor(row);
    return this.launch(call, { runId: row.id });
  }

  /** Waits until every run executing here has settled, or `graceMs` has passed. */
  async drain(graceMs: number): Promise<void> {
    const running = [...this.inFlight.values()].map((entry) =>
      entry.launch
        .then((l) => l.outcome)
        .then(
          () => undefined,
          () => undefined,
        ),
    );
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all(running), grace]);
    clearTimeout(timer);
  }

  /** The outcome of a run executing in this process, if any. */
  outcomeOf(runId: string): Promise<RunOutcome> | undefined {
    const entry = this.inFlight.get(runId);
    return entry?.launch.then((l) => l.outcome);
  }

  private async begin(
    call: MethodCall,
    runId: string,
    args: string,
    options: LaunchOptions,
  ): Promise<Launch> {
    const { store, clock, workerId, leaseMs } = this.kernel;
    const workflow = call.policies.workflow!;
    const now = clock.now();
    const created = await store.insertRun({
      id: runId,
      workflow: workflow.name,
      version: workflow.version ?? null,
      status: options.queue ? 'pending' : 'running',
      args,
      result: null,
      error: null,
      owner: options.queue ? null : workerId,
      epoch: 1,
      leaseExpiresAt: options.queue ? null : now + leaseMs,
      wakeAt: null,
      parentRunId: options.parentRunId ?? null,
      parkedSeq: null,
      waitingFor: null,
      forkedFrom: null,
      forkedSeq: null,
      createdAt: now,
      updatedAt: now,
    });
    if (options.queue) {
      // Nothing executes here and nothing watches it: a worker takes it, result() polls.
      if (!created) {
        const stored = await store.loadRun(runId);
        if (stored) this.assertSameRun(runId, stored, workflow.name, args);
      }
      return { runId, created, outcome: QUEUED };
    }
    if (created) {
      const run = new ActiveRun(runId, workflow.name, 1, new Map());
      return {
        runId,
        created,
        outcome: this.quiet(this.execute(run, call, false)),
      };
    }
    const stored = await store.loadRun(runId);
    if (!stored) throw new RunConflictError(runId, 'and vanished while being read; try again');
    this.assertSameRun(runId, stored, workflow.name, args);
    return { runId, created, outcome: this.quiet(this.continueStored(stored, call)) };
  }

  private async continueStored(stored: RunRow, call: MethodCall): Promise<RunOutcome> {
    const { store, clock, workerId, leaseMs } = this.kernel;
    switch (stored.status) {
      case 'completed':
      case 'failed':
      case 'cancelled':
      case 'needs_attention':
        return storedOutcome(this.kernel, stored);
    }
    const now = clock.now();
    if (this.heldElsewhere(stored, now)) return waitForStoredOutcome(this.kernel, stored.id);
    if (
      !(await store.claimRun(stored, workerId, now + leaseMs, now)) &&
      !(await this.claimedByUs(stored))
    ) {
      return waitForStoredOutcome(this.kernel, stored.id);
    }
    // A run that already began elsewhere (killed, or lease expired) resumes, even if it
    // recorded nothing yet; only a queued run that never ran starts.
    return this.executeClaimed(stored.id, stored.epoch + 1, call, stored.status !== 'pending');
  }

  /** A claim retried through a lost connection finds its own first attempt committed. */
  private async claimedByUs(before: RunRow): Promise<boolean> {
    const after = await this.kernel.store.loadRun(before.id);
    return (
      after?.owner === this.kernel.workerId &&
      after.epoch === before.epoch + 1 &&
      !this.active.has(before.id)
    );
  }

  /**
   * A run another live process executes (its lease holds) is waited for, never taken.
   * A run owned by this worker id but not executing here is from this worker's previous
   * life (a restart under the same id): taken over at once.
   */
  private heldElsewhere(row: RunRow, now: number): boolean {
    if (row.status !== 'running' || row.owner === null || row.owner === this.kernel.workerId)
      return false;
    return row.leaseExpiresAt !== null && row.leaseExpiresAt > now;
  }

  /**
   * Executes, in the background, a run an operator action just claimed for this process at
   * `epoch`; callers of `result()` here join it.
   */
  adoptClaimed(runId: string, epoch: number): void {
    const launch = this.kernel.store.loadRun(runId).then(async (row): Promise<Launch> => {
      if (!row) throw new RunNotFoundError(runId);
      if (!findWorkflow(row.workflow)) {
        // Not loaded here (an operator tool): hand it to a worker that has the code.
        await this.kernel.queue.release(runId, epoch, this.kernel.clock.now());
        return { runId, created: false, outcome: QUEUED };
      }
      return {
        runId,
        created: false,
        outcome: this.quiet(this.executeClaimed(runId, epoch, this.callFor(row))),
      };
    });
    this.track(runId, { workflow: '', args: '', launch, adopted: true });
  }

  /**
   * Executes a run a worker just claimed (`row` as claimed, at its new epoch); settles when
   * the run stops here. Callers of `result()` in this process join it.
   */
  adoptClaimedRow(row: RunRow): Promise<RunOutcome> {
    const launch = Promise.resolve().then((): Launch => ({
      runId: row.id,
      created: false,
      outcome: this.quiet(this.executeClaimed(row.id, row.epoch, this.callFor(row))),
    }));
    this.track(row.id, { workflow: '', args: '', launch, adopted: true });
    return launch.then((l) => l.outcome);
  }

  /** Loads the history of a run this process just claimed at `epoch`, and executes it. */
  async executeClaimed(
    runId: string,
    epoch: number,
    call?: MethodCall,
    begunBefore = false,
  ): Promise<RunOutcome> {
    const { steps, attempts } = await this.kernel.store.loadHistory(runId);
    const byStep = new Map<number, AttemptRow[]>();
    for (const attempt of attempts) {
      const list = byStep.get(attempt.seq) ?? [];
      list.push(attempt);
      byStep.set(attempt.seq, list);
    }
    const resolved = call ?? this.callFor((await this.kernel.store.loadRun(runId))!);
    const workflow = resolved.policies.workflow!.name;
    const run = new ActiveRun(
      runId,
      workflow,
      epoch,
      new Map(steps.map((s) => [s.seq, s])),
      byStep,
    );
    // A queued run a worker starts has no history yet: it starts, it does not resume.
    return this.execute(run, resolved, begunBefore || steps.length > 0 || attempts.length > 0);
  }

  /** Whether this process is executing any run. */
  hasActiveRuns(): boolean {
    return this.active.size > 0;
  }

  /** The runs this process is executing, with the epoch it holds each at. */
  activeRuns(): ReadonlyArray<{ runId: string; epoch: number }> {
    return [...this.active.values()].map((run) => ({ runId: run.runId, epoch: run.epoch }));
  }

  /**
   * After the grace period of a close: runs still executing here go back to the queue now
   * (their late writes are fenced once another process claims them).
   */
  async handOverRemaining(): Promise<void> {
    const { queue, clock, logger } = this.kernel;
    for (const { runId, epoch } of this.activeRuns()) {
      await queue.release(runId, epoch, clock.now()).catch((error: unknown) => {
        logger.warn(
          `could not hand run "${runId}" over; another process takes it when its lease lapses`,
          {
            error,
          },
        );
      });
    }
  }

  /** Stops a run executing here: it writes nothing more (another process took it, or it ended). */
  abortLocal(runId: string, reason: unknown): void {
    const run = this.active.get(runId);
    if (!run) return;
    run.halt(reason, 'abort');
    run.cancellation.abort(reason);
  }

  /** Cancels a run executing in this process: its current step's signal aborts now. */
  cancelLocal(runId: string, reason: unknown): void {
    this.active.get(runId)?.cancellation.abort(reason);
  }

  /** Resumes a stored run found due (or abandoned) by a caller waiting for it. */
  async resumeRow(row: RunRow): Promise<RunOutcome> {
    if (row.status === 'waiting' || row.status === 'running') {
      return (await this.resumeStored(row)).outcome;
    }
    if (row.status === 'pending') return waitForStoredOutcome(this.kernel, row.id);
    return storedOutcome(this.kernel, row);
  }

  private async execute(run: ActiveRun, call: MethodCall, resumed: boolean): Promise<RunOutcome> {
    this.active.set(run.runId, run);
    try {
      return await this.kernel.executor.execute(run, call, resumed);
    } finally {
      if (this.active.get(run.runId) === run) this.active.delete(run.runId);
    }
  }

  private assertSameRun(
    runId: string,
    existing: { workflow: string; args: string },
    workflow: string,
    args: string,
  ): void {
    if (existing.workflow !== workflow) {
      throw new RunConflictError(runId, `for workflow "${existing.workflow}", not "${workflow}"`);
    }
    if (Codec.canonical(existing.args) !== args) {
      throw new RunConflictError(
        runId,
        `with different arguments; a run id names one call of "${workflow}"`,
      );
    }
  }

  private deriveRunId(call: MethodCall): string {
    const workflow = call.policies.workflow!;
    if (!workflow.id) return randomUUID();
    const id: unknown = workflow.id(...call.args);
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_RUN_ID_LENGTH) {
      throw new ConfigurationError(
        `@Workflow id of "${workflow.name}" returned ${typeof id === 'string' ? `a string of ${id.length} characters` : typeof id}; ` +
          `it must return a non-empty string of at most ${MAX_RUN_ID_LENGTH} characters`,
      );
    }
    return id;
  }

  private callFor(row: RunRow): MethodCall {
    const address = findWorkflow(row.workflow);
    if (!address) throw new WorkflowNotRegisteredError(row.workflow);
    const policies = readMethodPolicies(address.target, address.methodName) as MethodPolicies;
    const args = this.kernel.codec.decode(row.args, `run "${row.id}" args`);
    const instance = this.kernel.resolveInstance(address.target);
    return { instance, declaringClass: address.target, policies, args: args as unknown[] };
  }

  /** Marks a background outcome as handled; callers that await it still see its rejection. */
  private quiet(outcome: Promise<RunOutcome>): Promise<RunOutcome> {
    outcome.catch(() => undefined);
    return outcome;
  }
}
