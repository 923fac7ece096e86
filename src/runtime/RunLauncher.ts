import { randomUUID } from 'node:crypto';
import { readMethodPolicies, type MethodPolicies } from '../decorators/metadata';
import { validateClassPolicies } from '../decorators/validateClassPolicies';
import { findWorkflow } from '../decorators/WorkflowRegistry';
import { ConfigurationError } from '../errors/ConfigurationError';
import { RunConflictError } from '../errors/RunConflictError';
import { WorkflowNotRegisteredError } from '../errors/WorkflowNotRegisteredError';
import { Codec } from '../store/Codec';
import type { RunRow } from '../store/rows';
import { ActiveRun } from './ActiveRun';
import type { RunOutcome } from './RunOutcome';
import type { RuntimeKernel } from './RuntimeKernel';
import type { MethodCall } from './WorkflowCall';
import { waitForStoredOutcome } from './waitForStoredOutcome';

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
}

interface InFlight {
  readonly workflow: string;
  readonly args: string;
  readonly launch: Promise<Launch>;
}

const MAX_RUN_ID_LENGTH = 255;

/**
 * Turns a workflow call into a run: creates it (one write), or finds the stored run with
 * that id and resumes it, returns its stored outcome, or joins its execution in this
 * process. Arguments that differ from the stored ones are a conflict, never a resume.
 */
export class RunLauncher {
  private readonly inFlight = new Map<string, InFlight>();

  constructor(private readonly kernel: RuntimeKernel) {}

  async launch(call: MethodCall, options: LaunchOptions = {}): Promise<Launch> {
    const workflow = call.policies.workflow!;
    this.kernel.lifecycle.assertOpen(`start workflow "${workflow.name}"`);
    validateClassPolicies(call.declaringClass);
    const runId = options.runId ?? this.deriveRunId(call);
    const args = Codec.canonical(this.kernel.codec.encode(call.args, 'args'));
    const joined = this.inFlight.get(runId);
    if (joined) {
      this.assertSameRun(runId, joined, workflow.name, args);
      return joined.launch;
    }
    const launch = this.begin(call, runId, args, options);
    const entry: InFlight = { workflow: workflow.name, args, launch };
    this.inFlight.set(runId, entry);
    const forget = (): void => {
      if (this.inFlight.get(runId) === entry) this.inFlight.delete(runId);
    };
    launch.then((l) => l.outcome.then(forget, forget), forget);
    return launch;
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
      status: 'running',
      args,
      result: null,
      error: null,
      owner: workerId,
      epoch: 1,
      leaseExpiresAt: now + leaseMs,
      wakeAt: null,
      parentRunId: options.parentRunId ?? null,
      createdAt: now,
      updatedAt: now,
    });
    if (created) {
      const run = new ActiveRun(runId, workflow.name, 1, new Map());
      return {
        runId,
        created,
        outcome: this.quiet(this.kernel.executor.execute(run, call, false)),
      };
    }
    const stored = await store.loadRun(runId);
    if (!stored) throw new RunConflictError(runId, 'and vanished while being read; try again');
    this.assertSameRun(runId, stored, workflow.name, args);
    return { runId, created, outcome: this.quiet(this.continueStored(stored, call)) };
  }

  private async continueStored(stored: RunRow, call: MethodCall): Promise<RunOutcome> {
    const { store, clock, workerId, leaseMs, codec } = this.kernel;
    switch (stored.status) {
      case 'completed':
        return {
          status: 'completed',
          result: codec.decode(stored.result ?? '', `run "${stored.id}" result`),
        };
      case 'failed':
      case 'cancelled':
      case 'needs_attention':
        return {
          status: stored.status,
          error: codec.decode(stored.error ?? '', `run "${stored.id}" error`),
        };
    }
    const now = clock.now();
    if (!(await store.claimRun(stored, workerId, now + leaseMs, now))) {
      return waitForStoredOutcome(this.kernel, stored.id);
    }
    const rows = await store.loadHistory(stored.id);
    const history = new Map(rows.map((row) => [row.seq, row]));
    const run = new ActiveRun(stored.id, stored.workflow, stored.epoch + 1, history);
    return this.kernel.executor.execute(run, call, true);
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
    const instance = this.kernel.container.resolve(address.target);
    return { instance, declaringClass: address.target, policies, args: args as unknown[] };
  }

  /** Marks a background outcome as handled; callers that await it still see its rejection. */
  private quiet(outcome: Promise<RunOutcome>): Promise<RunOutcome> {
    outcome.catch(() => undefined);
    return outcome;
  }
}
