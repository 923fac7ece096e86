import { randomBytes } from 'node:crypto';
import type { Clock } from '../../ground/Clock';
import type { LeaseHolder } from '../../ground/ProcessIdentity';
import type { ResolvedQueue } from '../../policies/FlowLimits';
import type { ClaimedFrom, ClaimedRun, ClaimToken, Leases } from '../../store/Leases';
import type { NamedQueueClaims } from '../../store/NamedQueueClaims';
import type { RunRow } from '../../store/rows';
import type { TakeOver } from '../../store/RunControl';
import type { RunClaims } from '../../store/RunClaims';
import type { RuntimeEvents } from './RuntimeEvents';

export type { ClaimToken } from '../../store/Leases';

/** What making claims uses. */
export interface ClaimsDeps {
  readonly leases: Leases;
  readonly queue: RunClaims;
  readonly queues: NamedQueueClaims;
  /** This runtime, as it appears on the leases it holds. */
  readonly self: LeaseHolder;
  readonly leaseMs: number;
  readonly clock: Clock;
  /** Told of each claim a worker makes (`run.claimed`) and each take-over (`run.taken_over`). */
  readonly events: RuntimeEvents;
}

/** Which runs a worker may take. */
export interface ClaimFilter {
  readonly limit: number;
  readonly workflows: string[];
  readonly versions: string[] | undefined;
}

/** A run claimed by this runtime, as the claim left its row. */
export interface Claimed {
  readonly row: RunRow;
  readonly claim: ClaimToken;
}

/** A run a worker's claim took, and what it was before: queued, due, or taken over. */
export interface WorkerClaim extends Claimed {
  readonly from: ClaimedFrom;
}

/** A new run's lease, given to the insert that creates it claimed. */
export interface Holding {
  readonly holder: LeaseHolder;
  readonly token: string;
}

/**
 * The one part that makes this runtime's claims, and the only place a claim token is minted:
 * a new run created claimed, a stored run taken over, a worker's batch, an operator's take-over.
 * Every claim comes out as one {@link ClaimToken} `{ runId, epoch, token }`.
 */
export class Claims {
  constructor(private readonly deps: ClaimsDeps) {}

  /** How long this runtime's leases last. */
  get leaseMs(): number {
    return this.deps.leaseMs;
  }

  /** This runtime's lease on a run it creates; its claim is epoch 1 under the token. */
  forNewRun(runId: string): { readonly holding: Holding; readonly claim: ClaimToken } {
    const token = mint();
    return { holding: { holder: this.deps.self, token }, claim: { runId, epoch: 1, token } };
  }

  /** Takes `row` over from whoever held its epoch; undefined when another claim moved it first. */
  async take(row: RunRow): Promise<ClaimToken | undefined> {
    const { leases, self, leaseMs, clock } = this.deps;
    const claim = await leases.claim(row, self, mint(), leaseMs, clock.now());
    if (claim && row.status === 'running') this.tookOver(row);
    return claim;
  }

  /** Claims pending, due and abandoned runs of the default queue. */
  async fromDefaultQueue(filter: ClaimFilter): Promise<WorkerClaim[]> {
    const { queue, self, leaseMs, clock } = this.deps;
    const token = mint();
    const now = clock.now();
    const rows = await queue.claim({ holder: self, token, now, leaseMs, ...filter });
    return rows.map((run) => this.told(claimedRow(run, token), now));
  }

  /** Claims from a named queue, within its limits (checked in the database). */
  async fromQueue(named: ResolvedQueue, filter: ClaimFilter): Promise<WorkerClaim[]> {
    const { queues, self, leaseMs, clock } = this.deps;
    const token = mint();
    const now = clock.now();
    const request = { queue: named, holder: self, token, now, leaseMs, ...filter };
    return (await queues.claim(request)).map((run) => this.told(claimedRow(run, token), now));
  }

  /** An operator action's take-over: by this runtime, or (`queue`) left `pending` for a worker. */
  takeOver(queue: boolean): TakeOver {
    const now = this.deps.clock.now();
    const token = mint();
    if (queue) return { holder: null, token, leaseMs: null, now };
    return { holder: this.deps.self, token, leaseMs: this.deps.leaseMs, now };
  }

  /** Tells what a worker's claim took: a queued or due run (and its wait), or a take-over. */
  private told(claimed: WorkerClaim, claimedAt: number): WorkerClaim {
    const { row, from } = claimed;
    if (from.status === 'running') {
      this.tookOver(row);
    } else {
      // A clock moved back (or a row written by a runtime whose clock runs ahead) waited 0.
      const waitedMs = Math.max(0, claimedAt - (from.readySince ?? claimedAt));
      const [runId, workflow, queue] = [row.id, row.workflow, row.queueName ?? null];
      this.deps.events.emit('run.claimed', { runId, workflow, queue, from: from.status, waitedMs });
    }
    return claimed;
  }

  private tookOver(row: RunRow): void {
    const [runId, workflow, queue] = [row.id, row.workflow, row.queueName ?? null];
    this.deps.events.emit('run.taken_over', { runId, workflow, queue });
  }
}

function claimedRow({ row, from }: ClaimedRun, token: string): WorkerClaim {
  return { row, from, claim: { runId: row.id, epoch: row.epoch, token } };
}

/** A token no other claim, in any process, has. */
function mint(): string {
  return randomBytes(12).toString('hex');
}
