import type { DataSource } from 'typeorm';
import { Waymark, type StreamEntry } from 'waymark';
import type { FaultPlan } from './FaultPlan';
import { STREAM, type SimResult } from './SimFlow';
import { readLedgers, type LedgerEntry } from './SimLedger';
import type { InjectedFault } from './Simulation';

/** A run as stored once the schedule ended. */
export interface StoredRun {
  readonly id: string;
  readonly status: string;
  readonly result: SimResult | undefined;
  readonly error: string | null;
  readonly epoch: number;
}

/** A step row as stored: its output parsed (a completed step's is `{ value, token }`). */
export interface StoredStep {
  readonly runId: string;
  readonly seq: number;
  readonly name: string;
  readonly status: string;
  readonly token: string | undefined;
  readonly output: string | null;
}

/** Everything the invariants look at, from the database and from outside it. */
export interface Evidence {
  readonly plan: FaultPlan;
  readonly runs: readonly StoredRun[];
  readonly steps: readonly StoredStep[];
  /** The application rows of the transactional step. */
  readonly orders: ReadonlyArray<{ readonly runId: string; readonly token: string }>;
  readonly streams: ReadonlyMap<string, ReadonlyArray<StreamEntry<string>>>;
  readonly ledger: readonly LedgerEntry[];
  readonly injected: readonly InjectedFault[];
  /** When each worker life ended, by `worker:life`. */
  readonly deaths: ReadonlyMap<string, number>;
  /** Some runs had not ended when the settle time was up. */
  readonly timedOut: boolean;
}

/** What the simulation hands over to be read into {@link Evidence}. */
export interface EvidenceSources {
  readonly plan: FaultPlan;
  readonly app: DataSource;
  readonly dir: string;
  readonly injected: readonly InjectedFault[];
  readonly deaths: ReadonlyMap<string, number>;
  readonly timedOut: boolean;
}

const STREAM_READ_MS = 2_000;

export async function collectEvidence(sources: EvidenceSources): Promise<Evidence> {
  const { plan, app } = sources;
  const ids = plan.runs.map((r) => r.runId);
  const marks = ids.map((_, i) => (plan.backend === 'postgres' ? `$${i + 1}` : '?')).join(', ');
  const runRows = await app.query<Array<Record<string, unknown>>>(
    `SELECT id, status, result, error, epoch FROM waymark_runs WHERE id IN (${marks})`,
    ids,
  );
  const stepRows = await app.query<Array<Record<string, unknown>>>(
    `SELECT run_id, seq, name, status, output FROM waymark_steps WHERE run_id IN (${marks})`,
    ids,
  );
  const orderRows = await app.query<Array<Record<string, unknown>>>(
    'SELECT run_id, token FROM sim_orders',
  );
  return {
    plan,
    runs: runRows.map((r) => ({
      id: String(r.id),
      status: String(r.status),
      result: typeof r.result === 'string' ? (JSON.parse(r.result) as SimResult) : undefined,
      error: typeof r.error === 'string' ? r.error : null,
      epoch: Number(r.epoch),
    })),
    steps: stepRows.map((r) => {
      const output = typeof r.output === 'string' ? r.output : null;
      return {
        runId: String(r.run_id),
        seq: Number(r.seq),
        name: String(r.name),
        status: String(r.status),
        output,
        token: r.status === 'completed' && output ? tokenOf(output) : undefined,
      };
    }),
    orders: orderRows.map((r) => ({ runId: String(r.run_id), token: String(r.token) })),
    streams: await readStreams(app, ids),
    ledger: readLedgers(sources.dir),
    injected: [...sources.injected].sort((a, b) => a.at - b.at),
    deaths: sources.deaths,
    timedOut: sources.timedOut,
  };
}

function tokenOf(output: string): string | undefined {
  const parsed = JSON.parse(output) as { token?: unknown } | null;
  return typeof parsed?.token === 'string' ? parsed.token : undefined;
}

/** Every run's stream, read to its end through a runtime that executes nothing. */
async function readStreams(
  app: DataSource,
  ids: readonly string[],
): Promise<Map<string, Array<StreamEntry<string>>>> {
  const reader = await Waymark.create({ database: app, workerId: 'sim-reader', migrate: false });
  const streams = new Map<string, Array<StreamEntry<string>>>();
  try {
    for (const id of ids) {
      const entries: Array<StreamEntry<string>> = [];
      const signal = AbortSignal.timeout(STREAM_READ_MS);
      for await (const entry of reader.readStream<string>(id, STREAM, { signal })) {
        entries.push(entry);
      }
      streams.set(id, entries);
    }
  } finally {
    await reader.close({ grace: 0 });
  }
  return streams;
}
