import { deriveSeed, mulberry32, upTo } from '../../support/SeededRandom';
import type { SimSpec } from './SimFlow';

/** A run of the plan, and when it is started (queued) after the workers start. */
export interface SimRun extends SimSpec {
  readonly arrivesAtMs: number;
}

/** The backends the simulator drives. */
export type SimBackend = 'sqlite-file' | 'mariadb' | 'postgres';

/** A fault at a moment of the schedule, on one worker. */
export type TimedFault =
  | { readonly atMs: number; readonly worker: number; readonly kind: 'sigkill' }
  | {
      readonly atMs: number;
      readonly worker: number;
      readonly kind: 'sigstop';
      readonly ms: number;
    }
  /** The worker's database refuses connections for `ms` (its open ones cut first). */
  | { readonly atMs: number; readonly worker: number; readonly kind: 'outage'; readonly ms: number }
  | { readonly atMs: number; readonly worker: number; readonly kind: 'cut-all' };

/**
 * Statements an "insert, or find who won" (or a retried conditional update) must get right
 * when its answer is lost: each plan may aim its lost acknowledgements at one of them
 * (FAULTS.md lists what each protects).
 */
export const AUDITED_STATEMENTS = [
  'INSERT INTO waymark_steps',
  'UPDATE waymark_steps SET status',
  'INSERT INTO waymark_attempts',
  'INSERT INTO waymark_idempotency_keys',
  'UPDATE waymark_idempotency_keys',
  'INSERT INTO waymark_stream_chunks',
  "UPDATE waymark_runs SET status = 'running'",
  'UPDATE waymark_runs SET lease_expires_at',
  'UPDATE waymark_runs SET status = ',
  'COMMIT',
] as const;

/** Per-statement chances of each fault a proxy injects while the window is open. */
export interface StatementRates {
  readonly cutBefore: number;
  /** After a write that committed (autocommit, or COMMIT): the answer never arrives. */
  readonly lostAck: number;
  /** While a transaction is open: the connection dies and the server rolls it back. */
  readonly cutMidTransaction: number;
  /** A reply held past a lease renewal. */
  readonly delay: number;
  readonly delayMs: number;
  /** A statement whose every completion is answered lost at this chance, if any. */
  readonly target: { readonly sql: string; readonly lostAck: number } | undefined;
}

/** Everything one seed decides. */
export interface FaultPlan {
  readonly seed: number;
  readonly backend: SimBackend;
  readonly workers: number;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly storeRetryTimeoutMs: number;
  /** Per worker: how far its clock is from real time. */
  readonly clockOffsetsMs: readonly number[];
  readonly runs: readonly SimRun[];
  /** Faults happen from the start until then; after it, nothing more is injected. */
  readonly windowMs: number;
  readonly timed: readonly TimedFault[];
  readonly statements: StatementRates;
  /** The most statement faults a proxy injects. */
  readonly maxStatementFaults: number;
  /** SQLite: the chance that the driver fails a statement, and the most it fails per life. */
  readonly sqliteRate: number;
  readonly sqliteMax: number;
}

/** What `seed` decides for `backend`: the same seed, the same plan. */
export function planFor(seed: number, backend: SimBackend): FaultPlan {
  const random = mulberry32(deriveSeed(seed, backend, 'plan'));
  const workers = 2 + upTo(random, 1);
  const leaseMs = 1_500;
  const windowMs = 5_000 + upTo(random, 3_000);
  const skewed = random() < 0.5;
  const clockOffsetsMs = Array.from({ length: workers }, () =>
    skewed && random() < 0.6 ? (random() < 0.5 ? -1 : 1) * (1 + upTo(random, 599)) * 1_000 : 0,
  );
  const keys = 2 + upTo(random, 2);
  const runs = Array.from({ length: 24 + upTo(random, 24) }, (_, n) => ({
    runId: `sim-${seed}-${n}`,
    key: `invoice-${seed}-${n % keys}`,
    chunks: 1 + upTo(random, 5),
    stepMs: 10 + upTo(random, 60),
    // A third at once, the rest arriving while the faults go on.
    arrivesAtMs: n < 8 ? 0 : upTo(random, windowMs - 500),
  }));
  const timed: TimedFault[] = [];
  for (let i = 0, count = 2 + upTo(random, 4); i < count; i++) {
    const atMs = 300 + upTo(random, windowMs - 600);
    const worker = upTo(random, workers - 1);
    const pick = random();
    if (pick < 0.35) timed.push({ atMs, worker, kind: 'sigkill' });
    else if (pick < 0.55)
      timed.push({ atMs, worker, kind: 'sigstop', ms: 200 + upTo(random, 3_000) });
    else if (pick < 0.8)
      timed.push({ atMs, worker, kind: 'outage', ms: 100 + upTo(random, 4_000) });
    else timed.push({ atMs, worker, kind: 'cut-all' });
  }
  timed.sort((a, b) => a.atMs - b.atMs);
  const rate = (max: number): number => Math.round(random() * max * 10_000) / 10_000;
  return {
    seed,
    backend,
    workers,
    concurrency: 4 + upTo(random, 4),
    leaseMs,
    storeRetryTimeoutMs: 2_000 + upTo(random, 3_000),
    clockOffsetsMs,
    runs,
    windowMs,
    timed,
    statements: {
      cutBefore: rate(0.02),
      lostAck: rate(0.04),
      cutMidTransaction: rate(0.04),
      delay: rate(0.01),
      delayMs: Math.round(leaseMs * (0.5 + random())),
      target:
        random() < 0.5
          ? { sql: AUDITED_STATEMENTS[upTo(random, AUDITED_STATEMENTS.length - 1)], lostAck: 0.3 }
          : undefined,
    },
    maxStatementFaults: 10 + upTo(random, 40),
    sqliteRate: rate(0.02),
    sqliteMax: 5 + upTo(random, 15),
  };
}

/** The plan as a few lines, for a failing schedule's report. */
export function describePlan(plan: FaultPlan): string[] {
  const s = plan.statements;
  return [
    `seed ${plan.seed} on ${plan.backend}: ${plan.workers} workers × ${plan.concurrency}, ` +
      `${plan.runs.length} runs, lease ${plan.leaseMs} ms, store retry ${plan.storeRetryTimeoutMs} ms, ` +
      `faults for ${plan.windowMs} ms`,
    `clock offsets (s): ${plan.clockOffsetsMs.map((ms) => ms / 1_000).join(', ')}`,
    `per statement: cut-before ${s.cutBefore}, lost-ack ${s.lostAck}, cut-mid-transaction ` +
      `${s.cutMidTransaction}, delay ${s.delay} (${s.delayMs} ms); at most ${plan.maxStatementFaults}` +
      (s.target ? `; lost acks aimed at "${s.target.sql}" (${s.target.lostAck})` : '') +
      (plan.backend === 'sqlite-file'
        ? `; SQLite driver ${plan.sqliteRate} (≤ ${plan.sqliteMax} a life)`
        : ''),
    ...plan.timed.map(
      (f) => `+${f.atMs}ms worker ${f.worker} ${f.kind}${'ms' in f ? ` ${f.ms} ms` : ''}`,
    ),
  ];
}
