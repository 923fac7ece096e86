import { Codec } from '../../codec/Codec';
import { RunConflictError } from '../../errors/RunConflictError';
import type { Clock } from '../../ground/Clock';
import type { LeaseHolder } from '../../ground/ProcessIdentity';
import { leaseLapsed } from '../../store/Leases';
import { newRunRowOf, type RunRow } from '../../store/rows';
import type { RunStore } from '../../store/RunStore';
import type { GroupedWrites } from '../../store/GroupCommit';
import type { Acquisition, RunIdentity } from './Acquisition';
import type { ClaimToken, Claims, Holding } from './Claims';
import type { WorkflowCall } from './WorkflowCall';
import { attemptsBySeq, RunState } from './RunState';
import { deadlineOf, type RunTiming } from './RunTiming';
import { storedOutcome } from './storedOutcome';

/** What acquiring runs uses. */
export interface RunAcquirerDeps {
  readonly store: RunStore;
  /** Where a new run's row is inserted: in a group commit, or alone. */
  readonly starts: Pick<GroupedWrites, 'insertRun'>;
  readonly claims: Claims;
  readonly codec: Codec;
  readonly clock: Clock;
  /** This runtime, as it appears on the leases it holds. */
  readonly self: LeaseHolder;
  /** Called when a caller finds its run held by a live holder elsewhere. */
  readonly onHeld: (row: RunRow) => void;
}

/** How to treat a stored run that is not ended. */
export interface AcquireOptions {
  /** Claim a `pending` (queued) run too; a waiting caller leaves those to workers. */
  readonly takePending: boolean;
  /** Say so (once) when the run is held elsewhere: the caller expects it to run now. */
  readonly announce: boolean;
  /** True once another claim of this process on the run was adopted: do not claim then. */
  readonly superseded?: () => boolean;
}

/**
 * Turns "execute this run here" into an {@link Acquisition}, in the fewest round trips:
 * a new run is created already claimed (one write); a stored one is claimed with one
 * conditional statement, then its whole history loaded in one query.
 */
export class RunAcquirer {
  constructor(private readonly deps: RunAcquirerDeps) {}

  /** Creates the run claimed by this runtime, or acquires the stored run with that id. */
  async create(
    call: WorkflowCall,
    runId: string,
    identity: RunIdentity,
    parentRunId: string | undefined,
    superseded: () => boolean,
    timing: RunTiming = {},
  ): Promise<Acquisition> {
    const { store, starts, clock, claims } = this.deps;
    const { holding, claim } = claims.forNewRun(runId);
    const now = clock.now();
    const row = newRunRow(runId, call, identity, parentRunId ?? null, now, holding, timing);
    if (await starts.insertRun(row, claims.leaseMs)) {
      return this.claimed(claim, call, new Map(), [], false);
    }
    const stored = await store.loadRun(runId);
    if (!stored) throw new RunConflictError(runId, 'and vanished while being read; try again');
    // A retry through a lost connection found this very insert committed.
    if (stored.claimToken === claim.token && stored.epoch === 1) {
      return this.claimed(claim, call, new Map(), [], false);
    }
    assertSameRun(stored, identity);
    return this.fromRow(stored, call, { takePending: true, announce: true, superseded });
  }

  /** Acquires a stored run: its outcome, or a claim on it, or "held elsewhere". */
  async fromRow(row: RunRow, call: WorkflowCall, options: AcquireOptions): Promise<Acquisition> {
    const { clock, self, claims } = this.deps;
    const now = clock.now();
    switch (row.status) {
      case 'completed':
      case 'failed':
      case 'cancelled':
      case 'needs_attention':
        return { kind: 'settled', outcome: storedOutcome(this.deps.codec, row) };
      case 'waiting':
        if (row.wakeAt === null || row.wakeAt > now)
          return { kind: 'settled', outcome: storedOutcome(this.deps.codec, row) };
        // A named queue's run starts again only through a worker's claim, under its limits.
        if (row.queueName) return { kind: 'held', row };
        break;
      case 'pending':
        if (!options.takePending || row.queueName) return { kind: 'held', row };
        break;
      case 'running':
        if (!leaseLapsed(row, self)) {
          // Held by this very runtime (its worker claimed it meanwhile) is not "held elsewhere".
          if (options.announce && row.leaseProcess !== self.process) this.deps.onHeld(row);
          return { kind: 'held', row };
        }
    }
    if (options.superseded?.()) return { kind: 'held', row };
    const claim = await claims.take(row);
    if (!claim) return { kind: 'held', row };
    // A run that already began elsewhere resumes, even with nothing recorded yet.
    return this.load(claim, call, row.status !== 'pending');
  }

  /** A claim made already (a worker's, an operator's): load the history and execute. */
  async load(claim: ClaimToken, call: WorkflowCall, begunBefore: boolean): Promise<Acquisition> {
    const { steps, attempts } = await this.deps.store.loadHistory(claim.runId);
    const history = new Map(steps.map((step) => [step.seq, step]));
    return this.claimed(claim, call, history, attempts, begunBefore);
  }

  private claimed(
    claim: ClaimToken,
    call: WorkflowCall,
    history: RunState['history'],
    attempts: Parameters<typeof attemptsBySeq>[0],
    begunBefore: boolean,
  ): Acquisition {
    const state = new RunState(claim, call, history, attemptsBySeq(attempts));
    const resumed = begunBefore || history.size > 0 || attempts.length > 0;
    return { kind: 'claimed', state, resumed };
  }
}

/** A new run row for `call`: claimed by `holding`, or `pending` for a worker without it. */
export function newRunRow(
  runId: string,
  call: WorkflowCall,
  identity: RunIdentity,
  parentRunId: string | null,
  now: number,
  holding?: Holding,
  timing: RunTiming = {},
): RunRow {
  // `at`: recorded waiting, for a worker to start when it is due.
  const wakeAt = holding ? undefined : timing.wakeAt;
  const startsAt = wakeAt === undefined ? now : Math.max(now, wakeAt);
  return newRunRowOf({
    id: runId,
    workflow: identity.workflow,
    version: call.plan.version ?? null,
    status: holding ? 'running' : wakeAt !== undefined ? 'waiting' : 'pending',
    args: identity.args,
    owner: holding?.holder.owner ?? null,
    wakeAt: wakeAt ?? null,
    parentRunId,
    waitingFor: wakeAt !== undefined ? 'start' : null,
    leaseHost: holding?.holder.host ?? null,
    leaseProcess: holding?.holder.process ?? null,
    claimToken: holding?.token ?? null,
    deadlineAt: deadlineOf(timing.deadlineAt, call.plan.timeoutMs, startsAt),
    startBy: timing.startBy ?? null,
    createdAt: now,
  });
}

/** A run id names one call of one workflow: another workflow or other arguments conflict. */
export function assertSameRun(
  existing: RunIdentity & { readonly id: string },
  identity: RunIdentity,
): void {
  const id = existing.id;
  if (existing.workflow !== identity.workflow) {
    throw new RunConflictError(
      id,
      `for workflow "${existing.workflow}", not "${identity.workflow}"`,
    );
  }
  if (Codec.canonical(existing.args) !== identity.args) {
    throw new RunConflictError(
      id,
      `with different arguments; a run id names one call of "${identity.workflow}"`,
    );
  }
}
