import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type Backend } from '../../support/databases';
import { killPhase } from './killPhase';
import { MixedRun } from './MixedRun';
import {
  checkRun,
  parkableSeq,
  referenceOf,
  type Reference,
  type RunEvidence,
  type ViolationKind,
} from './MixedRunChecks';
import { deriveSeed, mulberry32 } from '../../support/SeededRandom';
import { StandbyWorkers } from './StandbyWorkers';

/** How hard to shake one backend. */
export interface HarnessOptions {
  backend: Backend;
  /** Runs are started until at least this many processes were killed. */
  kills: number;
  seed: number;
  /**
   * Each kill lands a uniform 0…this many ms after the child printed `ready` (loading takes
   * ~1 s before that; the run's own work about 0.6 s after it). Default 400.
   */
  maxDelayMs?: number;
  /** Kills at most this many processes of one run; the ones after run undisturbed. Default 12. */
  maxKillsPerRun?: number;
  /** Children loading ahead of need (see {@link StandbyWorkers}). Default 1. */
  standby?: number;
  /** Called with a line per finished run and its schedule (the long script prints progress). */
  progress?: (line: string, schedule: readonly string[]) => void;
}

/** What one backend went through, and everything that went wrong. */
export interface HarnessReport {
  backend: Backend;
  seed: number;
  /** The kills asked for (`HarnessOptions.kills`). */
  target: number;
  kills: number;
  /** Processes that took a run over from its stored history after their predecessor was killed. */
  recoveries: number;
  runsCompleted: number;
  processes: number;
  /** Unknown outcomes the operator resolved with `resolveStep()` … */
  resolutions: number;
  /** … or sent again with `retry()` (no mail had gone out). */
  operatorRetries: number;
  /** Where the kills landed (see {@link killPhase}) → how many. */
  phases: Record<string, number>;
  counts: Record<ViolationKind, number>;
  /** Violations and errors, each under its run, with that run's seed and schedule. */
  failures: string[];
  elapsedMs: number;
}

const MAX_DELAY_MS = 400;
const MAX_KILLS_PER_RUN = 12;
const STANDBY = 1;

/**
 * The settings the environment asks for: `WAYMARK_CRASH_KILLS` (per backend),
 * `WAYMARK_CRASH_SEED` (default: from the clock) and `WAYMARK_CRASH_STANDBY`.
 */
export function settingsFromEnv(
  defaultKills: number,
): Pick<HarnessOptions, 'kills' | 'seed' | 'standby'> {
  const kills = Number(process.env.WAYMARK_CRASH_KILLS ?? defaultKills);
  const seed = Number(process.env.WAYMARK_CRASH_SEED ?? Date.now() % 2 ** 31);
  const standby = Number(process.env.WAYMARK_CRASH_STANDBY ?? STANDBY);
  if (!Number.isInteger(kills) || kills < 0) throw new Error('WAYMARK_CRASH_KILLS: not a count');
  if (!Number.isInteger(seed)) throw new Error('WAYMARK_CRASH_SEED: not an integer');
  if (!Number.isInteger(standby) || standby < 1) throw new Error('WAYMARK_CRASH_STANDBY: not ≥ 1');
  return { kills, seed, standby };
}

/**
 * The randomized SIGKILL harness on one backend: one uninterrupted reference run on a fresh
 * database, then runs of the same order, each on a fresh database, whose processes are
 * killed at seeded random moments and restarted until the run completes, until `kills`
 * processes were killed. Each completed run is checked against the reference. Stops at the
 * first run that cannot complete (a hang, a failing process); a failing run's database is
 * kept for a look.
 */
export async function runCrashHarness(options: HarnessOptions): Promise<HarnessReport> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-harness-'));
  const workers = new StandbyWorkers(dir, options.standby ?? STANDBY);
  const report: HarnessReport = {
    backend: options.backend,
    seed: options.seed,
    target: options.kills,
    kills: 0,
    recoveries: 0,
    runsCompleted: 0,
    processes: 0,
    resolutions: 0,
    operatorRetries: 0,
    phases: {},
    counts: { duplicate: 0, lost: 0, budget: 0, mismatch: 0 },
    failures: [],
    elapsedMs: 0,
  };
  try {
    let reference: Reference | undefined;
    for (let index = 0; reference === undefined || report.kills < options.kills; index++) {
      const outcome = await runOne(options, report, workers, dir, index, reference);
      if (outcome === 'stop') break;
      reference ??= outcome;
    }
  } finally {
    await workers.close();
    // A failing run's body log stays beside its database, for a look.
    if (report.failures.length === 0) rmSync(dir, { recursive: true, force: true });
    report.elapsedMs = Date.now() - started;
  }
  return report;
}

/**
 * Run `index` (0: the reference, never killed) on a fresh database, counted into `report`.
 * Returns its reference, or `'stop'` when the harness cannot go on.
 */
async function runOne(
  options: HarnessOptions,
  report: HarnessReport,
  workers: StandbyWorkers,
  dir: string,
  index: number,
  reference: Reference | undefined,
): Promise<Reference | 'stop'> {
  const { backend, seed } = options;
  const label = index === 0 ? 'reference run' : `run ${index}`;
  const runSeed = deriveSeed(seed, backend, index);
  const logPath = join(dir, `run-${index}.log`);
  const plan = {
    random: mulberry32(runSeed),
    maxKills: index === 0 ? 0 : (options.maxKillsPerRun ?? MAX_KILLS_PER_RUN),
    maxDelayMs: options.maxDelayMs ?? MAX_DELAY_MS,
  };
  let failures: string[] = [];
  let evidence: RunEvidence | undefined;
  let run: MixedRun | undefined;
  const db = await createTestDatabase(backend).catch((error: unknown) => {
    failures = [`error: ${describeError(error)}`];
    return undefined;
  });
  if (db) {
    try {
      run = await MixedRun.open(workers, db.url, logPath);
      await run.complete(plan, reference && parkableSeq(reference));
      evidence = await run.evidence();
      reference ??= referenceOf(evidence);
      failures = checkRun(evidence, reference).map((v) => {
        report.counts[v.kind]++;
        return `${v.kind}: ${v.message}`;
      });
      report.runsCompleted++;
      report.resolutions += run.resolutions;
      report.operatorRetries += run.operatorRetries;
    } catch (error) {
      failures = [`error: ${describeError(error)}`];
    } finally {
      await run?.close().catch((error: unknown) => failures.push(`error: ${describeError(error)}`));
    }
  }
  if (run) countProcesses(report, run, evidence);
  options.progress?.(
    `${backend} ${label}: ${run?.children.length ?? 0} processes, ${run?.kills ?? 0} killed, ` +
      `${failures.length === 0 ? 'ok' : `${failures.length} FAILURE(S)`} ` +
      `(${report.kills} kills so far)`,
    run?.transcript ?? [],
  );
  if (failures.length === 0) {
    await db?.drop();
    return reference ?? 'stop';
  }
  const kept = db ? `; kept: database ${db.url}, body log ${logPath}` : '';
  report.failures.push(
    `${label} (run seed ${runSeed}${kept}):\n` +
      failures.map((f) => `  ${f}`).join('\n') +
      `\n  schedule: ${run?.transcript.join('; ') ?? 'none'}`,
  );
  const fatal = index === 0 || failures.some((f) => f.startsWith('error: '));
  return fatal || !reference ? 'stop' : reference;
}

function countProcesses(report: HarnessReport, run: MixedRun, evidence?: RunEvidence): void {
  report.processes += run.children.length;
  for (const [index, child] of run.children.entries()) {
    if (child.ending !== 'killed') continue;
    report.kills++;
    const next = run.children[index + 1];
    if (next?.lines.some((line) => line.startsWith('resumed '))) report.recoveries++;
    if (evidence) {
      const phase = killPhase(child.pid, child.lines, evidence.bodies);
      report.phases[phase] = (report.phases[phase] ?? 0) + 1;
    }
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** The report as a failure message: how to reproduce it, then each failing run with its schedule. */
export function describeFailures(report: HarnessReport): string {
  return (
    `randomized SIGKILL harness on ${report.backend}: seed ${report.seed} ` +
    `(reproduce with WAYMARK_CRASH_SEED=${report.seed} WAYMARK_CRASH_KILLS=${report.target}); ` +
    `${report.kills} of ${report.target} kills, ${report.runsCompleted} runs completed\n` +
    report.failures.join('\n')
  );
}
