import { LeaseLostError } from '../errors/LeaseLostError';
import { RunFinishedError } from '../errors/RunFinishedError';
import { RunNotFoundError } from '../errors/RunNotFoundError';
import type { StepRow } from './rows';
import { isTerminalStatus, type RunStatus } from '../model/RunStatus';
import type { Database } from './connection/Database';
import { isDuplicateKey } from './connection/Dialect';
import { RunStore } from './RunStore';
import { assertRunId, assertSignalKey, assertSignalName } from '../model/identifiers';
import type { LockedRun } from '../model/toolApprovalSignals';
import type { Decision } from '../model/approvalDecision';
import { EarlierDecisions, type EarlierDecision } from './EarlierDecisions';

/** A signal sent to a run that no wait has taken yet. */
export interface PendingSignal {
  name: string;
  sentAt: Date;
}

/**
 * A rule a signal must pass before it is stored, given the run as the signal's transaction
 * locked it; it throws to refuse the signal. The store knows no convention of its own: the
 * runtime hands in the rules (such as `waymark/ai`'s, that `approve:<toolCallId>` answers only
 * the tool call the run waits for).
 */
export type SignalRule = (runId: string, name: string, run: LockedRun) => void;

/** A signal to store: its payload encoded already. */
export interface OutgoingSignal {
  runId: string;
  name: string;
  payload: string;
  /** The idempotency key: at most one signal per run, name and key is stored. */
  key: string | undefined;
  /** The approval decision the signal carries (`approve:<toolCallId>`). */
  decision: Decision | undefined;
}

/** What {@link SignalStore.send} did: stored it, found its key taken, or found a decision. */
export type SendOutcome =
  { kind: 'stored' } | { kind: 'duplicate' } | { kind: 'decided'; earlier: EarlierDecision };

/** The most pending signals {@link SignalStore.pending} reads. */
const MAX_PENDING = 100;

/**
 * Signals to runs, each stored in the same transaction that checks the run (so none is
 * lost, and none is accepted for a run that ended), kept in order, and each consumed by
 * exactly one wait, recorded as that wait's outcome in the same transaction.
 */
export class SignalStore {
  constructor(
    private readonly db: Database,
    private readonly admit: SignalRule,
  ) {}

  /**
   * Stores a signal and wakes the run if it waits for this signal. A signal with a `key` is
   * stored only as the first with its run, name and key (the run row locked first, and a
   * unique index behind that): a repeat stores nothing, even after the run took the first or
   * ended. A `decision` is stored only as the first for its request: when one was stored
   * already, nothing is and that one is answered instead.
   */
  async send(signal: OutgoingSignal, now: number): Promise<SendOutcome> {
    const { runId, name, key } = signal;
    assertRunId(runId, 'signal(): runId');
    assertSignalName(name, 'signal(): name');
    if (key !== undefined) assertSignalKey(key, 'signal(): idempotencyKey');
    try {
      return await this.store(signal, now);
    } catch (error) {
      // The unique index, behind the run lock (which serializes sends, so this is a backstop):
      // a send of the key that committed first.
      if (key !== undefined && isDuplicateKey(error)) return { kind: 'duplicate' };
      throw error;
    }
  }

  private async store(signal: OutgoingSignal, now: number): Promise<SendOutcome> {
    const { runId, name, payload, key, decision } = signal;
    return this.db.transaction(`signal run "${runId}"`, async (tx) => {
      const run = await this.lockRun(tx, runId);
      if (!run) throw new RunNotFoundError(runId);
      if (key !== undefined && (await this.keyTaken(tx, runId, name, key))) {
        return { kind: 'duplicate' };
      }
      if (isTerminalStatus(run.status))
        throw new RunFinishedError(runId, run.status, `signal "${name}" to`);
      if (decision) {
        const earlier = await new EarlierDecisions(tx).find(runId, name, run, decision);
        if (earlier) return { kind: 'decided', earlier };
      }
      this.admit(runId, name, run);
      await tx.exec(
        'store a signal',
        this.db.sql(
          'INSERT INTO waymark_signals (run_id, name, payload, consumed_seq, created_at, idempotency_key) ' +
            'VALUES (?, ?, ?, NULL, ?, ?)',
        ),
        [runId, name, payload, now, key ?? null],
      );
      await tx.exec(
        'wake the run',
        this.db.sql(
          "UPDATE waymark_runs SET wake_at = ?, updated_at = ? WHERE id = ? AND status = 'waiting' AND waiting_for = ?",
        ),
        [now, now, runId, `signal:${name}`],
      );
      return { kind: 'stored' };
    });
  }

  /**
   * Signals sent to `runId` (named `name`, when given) that no wait has taken yet, oldest
   * first; at most 100.
   */
  async pending(runId: string, name?: string): Promise<PendingSignal[]> {
    assertRunId(runId, 'pendingSignals(): runId');
    if (name !== undefined) assertSignalName(name, 'pendingSignals(): name');
    const { records } = await this.db.exec(
      `read the pending signals of run "${runId}"`,
      this.db.sql(
        'SELECT name, created_at FROM waymark_signals WHERE run_id = ? AND consumed_seq IS NULL' +
          `${name === undefined ? '' : ' AND name = ?'} ORDER BY id LIMIT ${MAX_PENDING}`,
      ),
      name === undefined ? [runId] : [runId, name],
    );
    return records.map((raw) => ({
      name: String(raw.name),
      sentAt: new Date(Number(raw.created_at)),
    }));
  }

  /**
   * Consumes the oldest unconsumed signal `name` and records its payload as the outcome of
   * the wait at `row.seq`; undefined when none is there.
   */
  async take(
    row: StepRow,
    name: string,
    epoch: number,
    overIntent: boolean,
  ): Promise<string | undefined> {
    return this.db.transaction(
      `take signal "${name}" for run "${row.runId}"`,
      async (tx) => {
        // Repeated after a lost connection: the first try may have taken one already.
        const runs = new RunStore(tx);
        const taken = await runs.loadStep(row.runId, row.seq);
        if (taken?.status === 'completed') return taken.output ?? '';
        const [signal] = (
          await tx.exec(
            'find a signal',
            this.db.sql(
              'SELECT id, payload FROM waymark_signals WHERE run_id = ? AND name = ? AND consumed_seq IS NULL ' +
                `ORDER BY id LIMIT 1${this.forUpdate}`,
            ),
            [row.runId, name],
          )
        ).records as Array<{ id: unknown; payload: string }>;
        if (!signal) return undefined;
        await tx.exec(
          'consume a signal',
          this.db.sql('UPDATE waymark_signals SET consumed_seq = ? WHERE id = ?'),
          [row.seq, Number(signal.id)],
        );
        const outcome: StepRow = { ...row, status: 'completed', output: signal.payload };
        if (overIntent) await runs.completeIntent(outcome, epoch);
        else if ((await runs.insertStep(outcome, epoch)) === 'duplicate')
          throw new LeaseLostError(row.runId, epoch);
        return signal.payload;
      },
      { retry: true },
    );
  }

  /**
   * Releases the run to wait for signal `name` until `deadline` (or for ever), unless one
   * arrived meanwhile (then false: take it). The run row is locked first, as `send` locks
   * it, so a signal is either seen here or wakes the run.
   */
  async suspend(
    intent: StepRow | undefined,
    runId: string,
    name: string,
    epoch: number,
    deadline: number | null,
    now: number,
  ): Promise<boolean> {
    return this.db.transaction(
      `suspend run "${runId}"`,
      async (tx) => {
        const run = await this.lockRun(tx, runId);
        if (!run || run.epoch !== epoch) throw new LeaseLostError(runId, epoch);
        const { records } = await tx.exec(
          'look for a signal',
          this.db.sql(
            `SELECT id FROM waymark_signals WHERE run_id = ? AND name = ? AND consumed_seq IS NULL LIMIT 1${this.forUpdate}`,
          ),
          [runId, name],
        );
        if (records.length > 0) return false;
        const runs = new RunStore(tx);
        if (intent) await runs.insertStep(intent, epoch);
        await runs.suspendRun(runId, epoch, deadline, `signal:${name}`, now);
        return true;
      },
      { retry: true },
    );
  }

  /**
   * Whether a signal `name` with `key` was stored for the run. Not a locking read: a wait may
   * hold that signal's row while it waits for the run row this send holds. The run row lock
   * is enough: a send that stored the key committed before this one could lock it, and the
   * statement reads what was committed (READ COMMITTED; in InnoDB's REPEATABLE READ the
   * snapshot starts at this first plain read, after the lock).
   */
  private async keyTaken(tx: Database, runId: string, name: string, key: string): Promise<boolean> {
    const { records } = await tx.exec(
      'look for a signal with the same key',
      this.db.sql(
        'SELECT id FROM waymark_signals WHERE run_id = ? AND name = ? AND idempotency_key = ?',
      ),
      [runId, name, key],
    );
    return records.length > 0;
  }

  private async lockRun(tx: Database, runId: string): Promise<LockedRun | undefined> {
    const { records } = await tx.exec(
      `lock run "${runId}"`,
      this.db.sql(
        `SELECT status, epoch, waiting_for FROM waymark_runs WHERE id = ?${this.forUpdate}`,
      ),
      [runId],
    );
    const raw = records[0] as
      { status: RunStatus; epoch: unknown; waiting_for: string | null } | undefined;
    return raw
      ? { status: raw.status, epoch: Number(raw.epoch), waitingFor: raw.waiting_for ?? null }
      : undefined;
  }

  private get forUpdate(): string {
    return this.db.dialect === 'sqlite' ? '' : ' FOR UPDATE';
  }
}
