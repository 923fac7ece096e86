import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import type { Decision } from '../model/approvalDecision';
import type { LockedRun } from '../model/toolApprovalSignals';
import type { Database } from './connection/Database';

/** A decision already stored for the request a later one answers. */
export interface EarlierDecision {
  /** Its payload, encoded. */
  readonly payload: string;
  readonly sentAt: Date;
}

/**
 * Finds, inside a signal's transaction (the run row locked, as every send and every suspend
 * locks it, so two deciders are serialized even from two processes), the decision already
 * taken for the request that `decision` answers: the run's current wait for `name`, or the
 * wait at `decision.waitSeq`. Throws when the decision names a request the run does not wait
 * for or whose arguments differ from those the decider saw.
 */
export class EarlierDecisions {
  constructor(private readonly tx: Database) {}

  async find(
    runId: string,
    name: string,
    run: LockedRun,
    decision: Decision,
  ): Promise<EarlierDecision | undefined> {
    const step = `signal:${name}`;
    const awaited = run.status === 'waiting' && run.waitingFor === step;
    const waitSeq = awaited ? await this.openWait(runId, step) : undefined;
    const target = decision.waitSeq ?? waitSeq;
    // No wait named and none open: the run has moved on; its last decision answered the request.
    if (target === undefined) return this.signal(runId, name, 'ORDER BY id DESC', []);
    if (target !== waitSeq) {
      // The decision that wait took; or one not taken yet, as the run resumes to take it: an
      // approval is only stored while the run waits for it, so it answers the latest wait.
      const taken = await this.signal(
        runId,
        name,
        'AND (consumed_seq = ? OR consumed_seq IS NULL) ORDER BY id',
        [target],
      );
      if (taken) return taken;
      throw new InvalidArgumentError(
        `signal(): "${name}" for the wait at seq ${target}`,
        `is refused: run "${runId}" does not wait there (${waitSeq === undefined ? `it is ${run.status}` : `it waits at seq ${waitSeq}`})`,
      );
    }
    // Sent for the open wait and not yet taken by it: the first decision, still in flight.
    const inFlight = await this.signal(runId, name, 'AND consumed_seq IS NULL ORDER BY id', []);
    if (inFlight) return inFlight;
    if (decision.digest !== undefined) await this.checkDigest(runId, name, target, decision);
    return undefined;
  }

  /** The seq of the run's started, unended wait `step`. */
  private async openWait(runId: string, step: string): Promise<number | undefined> {
    const { records } = await this.tx.exec(
      `find the open wait of run "${runId}"`,
      this.tx.sql(
        "SELECT seq FROM waymark_steps WHERE run_id = ? AND name = ? AND status = 'started' ORDER BY seq DESC LIMIT 1",
      ),
      [runId, step],
    );
    return records[0] ? Number(records[0].seq) : undefined;
  }

  // Not a locking read: a decision this one must see was committed before the run's row lock
  // was granted, so even MySQL's repeatable-read snapshot (taken at the first plain read, after
  // that lock) holds it; locking the signal rows would deadlock with a wait taking one.
  private async signal(
    runId: string,
    name: string,
    where: string,
    params: unknown[],
  ): Promise<EarlierDecision | undefined> {
    const { records } = await this.tx.exec(
      `find the decision "${name}" of run "${runId}"`,
      this.tx.sql(
        `SELECT payload, created_at FROM waymark_signals WHERE run_id = ? AND name = ? ${where} LIMIT 1`,
      ),
      [runId, name, ...params],
    );
    const raw = records[0] as { payload: string; created_at: unknown } | undefined;
    return raw ? { payload: raw.payload, sentAt: new Date(Number(raw.created_at)) } : undefined;
  }

  /** Refuses a decision whose digest is not that of the request recorded before the wait. */
  private async checkDigest(
    runId: string,
    name: string,
    waitSeq: number,
    decision: Decision,
  ): Promise<void> {
    const { records } = await this.tx.exec(
      `read the request of run "${runId}"`,
      this.tx.sql(
        'SELECT output FROM waymark_steps WHERE run_id = ? AND name = ? AND seq < ? ORDER BY seq DESC LIMIT 1',
      ),
      [runId, decision.requestStep, waitSeq],
    );
    const output = records[0]?.output;
    const found = typeof output === 'string' ? decision.digestOf(output) : undefined;
    if (found === decision.digest) return;
    throw new InvalidArgumentError(
      `signal(): "${name}" with digest ${decision.digest}`,
      `is refused: run "${runId}" waits on ${found === undefined ? 'no recorded request' : `a request with digest ${found}`}; reload it and decide again`,
    );
  }
}
