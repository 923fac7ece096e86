import { checkInvariants, type Violation } from './Invariants';
import type { Evidence } from './Evidence';
import { describePlan, planFor, type SimBackend } from './FaultPlan';
import { Simulation } from './Simulation';

/** One schedule, run and checked. */
export interface ScheduleOutcome {
  readonly seed: number;
  readonly backend: SimBackend;
  readonly violations: readonly Violation[];
  readonly figures: ScheduleFigures;
  /** The plan, the faults as injected, and the violations: what a failing seed prints. */
  readonly report: string;
}

/** What one schedule did, for the published figures. */
export interface ScheduleFigures {
  readonly runs: number;
  readonly steps: number;
  readonly bodies: number;
  /** Claims beyond each run's first. */
  readonly takeovers: number;
  readonly faults: Readonly<Record<string, number>>;
  readonly ms: number;
}

/** Runs the schedule `seed` decides for `backend` and checks every invariant after it. */
export async function runSchedule(seed: number, backend: SimBackend): Promise<ScheduleOutcome> {
  const plan = planFor(seed, backend);
  const started = Date.now();
  const evidence = await Simulation.run(plan);
  const violations = checkInvariants(evidence);
  const figures = figuresOf(evidence, Date.now() - started);
  const report = [
    ...describePlan(plan),
    'injected:',
    ...evidence.injected.map(
      (f) => `  +${f.at - started}ms worker ${f.worker} ${f.kind}: ${f.description}`,
    ),
    ...evidence.ledger
      .filter((e) => e.k === 'fault')
      .map((e) => `  +${e.t - started}ms worker ${e.worker} ${'fault' in e ? e.fault : ''}`),
    violations.length === 0 ? 'no violation' : `${violations.length} violations:`,
    ...violations.map((v) => `  [${v.invariant}] ${v.detail}`),
    `replay: npm run test:faults -- --backend ${backend} --seed ${seed}`,
  ].join('\n');
  return { seed, backend, violations, figures, report };
}

function figuresOf(evidence: Evidence, ms: number): ScheduleFigures {
  const faults: Record<string, number> = {};
  const count = (kind: string): void => {
    faults[kind] = (faults[kind] ?? 0) + 1;
  };
  for (const fault of evidence.injected) count(fault.kind);
  for (const entry of evidence.ledger) {
    if (entry.k === 'fault') count(entry.fault === 'stall' ? 'stall' : `sqlite ${entry.fault}`);
  }
  return {
    runs: evidence.runs.length,
    steps: evidence.steps.length,
    bodies: evidence.ledger.filter((e) => e.k === 'body').length,
    takeovers: evidence.runs.reduce((sum, run) => sum + Math.max(0, run.epoch - 2), 0),
    faults,
    ms,
  };
}
