import type { EntityManager } from 'typeorm';
import { InvalidRunStateError } from '../errors/InvalidRunStateError';
import { RunConflictError } from '../errors/RunConflictError';
import { isDuplicateKey } from './connection/Dialect';
import { RunNotFoundError } from '../errors/RunNotFoundError';
import type { Lifecycle } from '../ground/Lifecycle';
import type { LeaseHolder } from '../ground/ProcessIdentity';
import type { DialectName } from './connection/Dialect';
import { serverTimeAfterSql } from './serverClock';
import type { Database } from './connection/Database';
import { toAttemptRow, toRunRow, toStepRow, type RunRow } from './rows';
import { assertRunId } from '../model/identifiers';
import { copyHistoryBefore, overrideStep, type TransactionSql } from './forkHistory';

/**
 * Who takes a run over after an operator action, and until when: a request, not a claim (the
 * claim it makes is the run's new epoch under `token`).
 */
export interface TakeOver {
  /** This runtime, to continue the run here; null to leave it `pending` for any worker. */
  holder: LeaseHolder | null;
  /** The token of this claim. */
  token: string;
  /** How long the lease lasts, from now on the server's clock; null with no holder. */
  leaseMs: number | null;
  now: number;
}

/**
 * Operator actions on stored runs, each in one transaction: retry a failed or parked
 * run, record the outcome of a parked step, cancel a run. Retry and resolve take the run
 * over (a new epoch) so the caller can execute it at once; any process still holding the
 * old epoch is fenced out.
 */
export class RunControl {
  private readonly dialect: DialectName;

  constructor(
    private readonly db: Database,
    private readonly lifecycle: Lifecycle,
  ) {
    this.dialect = db.dialect;
  }

  /**
   * Puts a `failed` or `needs_attention` run back to work from the step that stopped it,
   * with a fresh retry budget for that step. Returns the epoch the claim holds.
   */
  async retry(runId: string, claim: TakeOver): Promise<number> {
    assertRunId(runId, 'retry(): runId');
    return this.transaction(`retry run "${runId}"`, async (sql) => {
      const run = await this.lockRun(sql, runId);
      if (run.status !== 'failed' && run.status !== 'needs_attention') {
        throw new InvalidRunStateError(
          runId,
          run.status,
          'retry',
          'only failed or needs_attention runs can be retried',
        );
      }
      let seq = run.parkedSeq;
      if (seq === null && run.status === 'failed')
        seq = await this.moveLastFailureToAttempts(sql, run, claim.now);
      if (seq !== null) {
        // An at-most-once step parked with an unknown outcome: the operator says run it again.
        await sql("DELETE FROM waymark_steps WHERE run_id = ? AND seq = ? AND status = 'started'", [
          runId,
          seq,
        ]);
        await this.insertMarker(sql, runId, seq, claim.now);
      }
      return this.takeOver(sql, run, claim);
    });
  }

  /** Records `output` as the outcome of the step a parked run waits at, and takes it over. */
  async resolveStep(runId: string, output: string, claim: TakeOver): Promise<number> {
    assertRunId(runId, 'resolveStep(): runId');
    return this.transaction(`resolve the parked step of run "${runId}"`, async (sql) => {
      const run = await this.lockRun(sql, runId);
      if (run.status !== 'needs_attention' || run.parkedSeq === null) {
        throw new InvalidRunStateError(
          runId,
          run.status,
          'resolve a step of',
          'only a run parked at a step (needs_attention after onExhausted or onUnknown: intervene) has one to resolve',
        );
      }
      const attempts = (await sql(
        'SELECT seq, attempt, name, status, error AS output, failed_at AS started_at, next_at AS finished_at, ' +
          'idempotency_key FROM waymark_attempts WHERE run_id = ? AND seq = ? ORDER BY attempt',
        [runId, run.parkedSeq],
      )) as Array<Record<string, unknown>>;
      const rows = attempts.map((raw) => toAttemptRow(runId, raw));
      const lastReset = rows.map((r) => r.status).lastIndexOf('reset');
      const failures = rows.slice(lastReset + 1);
      const [intent] = (await sql(
        "SELECT name FROM waymark_steps WHERE run_id = ? AND seq = ? AND status = 'started'",
        [runId, run.parkedSeq],
      )) as Array<{ name: string }>;
      if (intent) {
        // An at-most-once step parked with an unknown outcome: the operator says what happened.
        await sql(
          "UPDATE waymark_steps SET status = 'completed', output = ?, finished_at = ? WHERE run_id = ? AND seq = ?",
          [output, claim.now, runId, run.parkedSeq],
        );
        return this.takeOver(sql, run, claim);
      }
      await sql(
        'INSERT INTO waymark_steps (run_id, seq, name, status, output, attempts, started_at, finished_at, ' +
          "idempotency_key) VALUES (?, ?, ?, 'completed', ?, ?, ?, ?, ?)",
        [
          runId,
          run.parkedSeq,
          rows[0]?.name ?? 'resolved',
          output,
          failures.length,
          failures[0]?.failedAt ?? claim.now,
          claim.now,
          rows.at(-1)?.idempotencyKey ?? null,
        ],
      );
      return this.takeOver(sql, run, claim);
    });
  }

  /**
   * Creates run `newRunId` from run `runId`: same workflow, version and arguments, and a
   * copy of its history before `fromSeq`; claimed by `claim.owner` at epoch 1. The
   * original is not touched. Each of `overrides` (seq → encoded result) stands in the copy
   * for the original's step at that seq, before or after `fromSeq`, as a completed outcome.
   */
  async fork(
    runId: string,
    newRunId: string,
    fromSeq: number,
    claim: TakeOver,
    overrides: ReadonlyMap<number, string> = new Map(),
  ): Promise<void> {
    assertRunId(runId, 'fork(): runId');
    assertRunId(newRunId, 'fork(): newRunId');
    await this.transaction(`fork run "${runId}"`, async (sql) => {
      const source = await this.lockRun(sql, runId);
      try {
        await sql(
          'INSERT INTO waymark_runs (id, workflow, version, status, args, result, error, owner, epoch, ' +
            'lease_expires_at, wake_at, parent_run_id, created_at, updated_at, forked_from, forked_seq, ' +
            'lease_host, lease_process, claim_token) ' +
            `VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, 1, ${serverTimeAfterSql(this.dialect)}, NULL, NULL, ` +
            '?, ?, ?, ?, ?, ?, ?)',
          [
            newRunId,
            source.workflow,
            source.version,
            claim.holder ? 'running' : 'pending',
            source.args,
            claim.holder?.owner ?? null,
            claim.leaseMs,
            claim.now,
            claim.now,
            runId,
            fromSeq,
            claim.holder?.host ?? null,
            claim.holder?.process ?? null,
            claim.holder ? claim.token : null,
          ],
        );
      } catch (error) {
        if (isDuplicateKey(error))
          throw new RunConflictError(newRunId, '; pick another id for the fork');
        throw error;
      }
      await copyHistoryBefore(sql, runId, newRunId, fromSeq);
      for (const [seq, output] of overrides) await overrideStep(sql, runId, newRunId, seq, output);
    });
  }

  private async moveLastFailureToAttempts(
    sql: Sql,
    run: RunRow,
    now: number,
  ): Promise<number | null> {
    const [raw] = (await sql(
      'SELECT seq, name, status, output, attempts, started_at, finished_at, idempotency_key ' +
        'FROM waymark_steps WHERE run_id = ? ORDER BY seq DESC LIMIT 1',
      [run.id],
    )) as Array<Record<string, unknown>>;
    if (!raw) return null;
    const last = toStepRow(run.id, raw);
    if (last.status !== 'failed') return null;
    await sql(
      'INSERT INTO waymark_attempts (run_id, seq, attempt, name, status, error, failed_at, next_at, ' +
        "idempotency_key) VALUES (?, ?, ?, ?, 'failed', ?, ?, NULL, ?)",
      [
        run.id,
        last.seq,
        await this.nextAttempt(sql, run.id, last.seq),
        last.name,
        last.output,
        last.finishedAt ?? now,
        last.idempotencyKey ?? null,
      ],
    );
    await sql('DELETE FROM waymark_steps WHERE run_id = ? AND seq = ?', [run.id, last.seq]);
    return last.seq;
  }

  private async insertMarker(sql: Sql, runId: string, seq: number, now: number): Promise<void> {
    const attempt = await this.nextAttempt(sql, runId, seq);
    const [named] = (await sql(
      'SELECT name FROM waymark_attempts WHERE run_id = ? AND seq = ? ORDER BY attempt DESC LIMIT 1',
      [runId, seq],
    )) as Array<{ name: string }>;
    await sql(
      'INSERT INTO waymark_attempts (run_id, seq, attempt, name, status, error, failed_at, next_at) ' +
        "VALUES (?, ?, ?, ?, 'reset', NULL, ?, NULL)",
      [runId, seq, attempt, named?.name ?? 'step', now],
    );
  }

  private async nextAttempt(sql: Sql, runId: string, seq: number): Promise<number> {
    const [row] = (await sql(
      'SELECT MAX(attempt) AS max_attempt FROM waymark_attempts WHERE run_id = ? AND seq = ?',
      [runId, seq],
    )) as Array<{ max_attempt: unknown }>;
    return Number(row?.max_attempt ?? 0) + 1;
  }

  private async takeOver(sql: Sql, run: RunRow, claim: TakeOver): Promise<number> {
    await sql(
      'UPDATE waymark_runs SET status = ?, owner = ?, lease_host = ?, lease_process = ?, claim_token = ?, ' +
        `epoch = epoch + 1, lease_expires_at = ${serverTimeAfterSql(this.dialect)}, wake_at = NULL, ` +
        'error = NULL, result = NULL, parked_seq = NULL, ' +
        'parked_reason = NULL, ' +
        'updated_at = ? WHERE id = ? AND epoch = ?',
      [
        claim.holder ? 'running' : 'pending',
        claim.holder?.owner ?? null,
        claim.holder?.host ?? null,
        claim.holder?.process ?? null,
        claim.holder ? claim.token : null,
        claim.leaseMs,
        claim.now,
        run.id,
        run.epoch,
      ],
    );
    return run.epoch + 1;
  }

  private async lockRun(sql: Sql, runId: string): Promise<RunRow> {
    const lock = this.dialect === 'sqlite' ? '' : ' FOR UPDATE';
    const [raw] = (await sql(`SELECT * FROM waymark_runs WHERE id = ?${lock}`, [runId])) as Array<
      Record<string, unknown>
    >;
    if (!raw) throw new RunNotFoundError(runId);
    return toRunRow(raw);
  }

  /**
   * Through the store's connection: on SQLite that is `BEGIN IMMEDIATE` (TypeORM's deferred
   * `BEGIN` fails at once with "database is locked" when another process, e.g. a second CLI
   * command, writes between this transaction's read and its write), queued behind the
   * process's other statements.
   */
  private async transaction<T>(operation: string, work: (sql: Sql) => Promise<T>): Promise<T> {
    this.lifecycle.assertOpen(operation);
    return this.db.transaction(operation, (_tx, manager: EntityManager) =>
      work((text, params) => manager.query(this.db.sql(text), params)),
    );
  }
}

type Sql = TransactionSql;
