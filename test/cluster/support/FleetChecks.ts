import type { StepRecord } from 'waymark';
import type { OrderPlan } from '../fixtures/ClusterOrder';
import type { FleetEvidence } from './FleetRun';

/** One step body that ran more than once. */
export interface ReRun {
  runId: string;
  /** The ledger label: `stage-2`, `charge`, `invoice`. */
  step: string;
  executions: number;
  /** Its first execution began before the kill and its checkpoint had not committed then. */
  inFlightAtKill: boolean;
}

/** The counts a fleet run is judged by. */
export interface FleetCounts {
  runs: number;
  completed: number;
  /** What is missing from completed runs' histories (a gap, or fewer stages than planned). */
  lostSteps: string[];
  /** Step records missing from completed runs' histories, counted once each. */
  missingSteps: number;
  /** Checkpoints a worker saw commit that the database no longer has. */
  lostAcknowledged: string[];
  /** Step bodies executed more than once. */
  reRuns: ReRun[];
  /** Steps executed: one per planned step, plus the re-runs. */
  bodies: number;
  /** Steps whose checkpoint was in flight at the kill (begun, not committed). */
  inFlightAtKill: number;
}

/** The ledger labels a run of `plan` executes, in order. */
export function plannedSteps(plan: OrderPlan): string[] {
  const stages = Array.from({ length: plan.stages }, (_, i) => `stage-${i + 1}`);
  return [...stages, 'charge', ...(plan.invoice ? ['invoice'] : [])];
}

/** Judges what a fleet run left: lost steps, re-runs and why, against the kill's moment. */
export function countFleet(evidence: FleetEvidence): FleetCounts {
  const lostSteps: string[] = [];
  let missingSteps = 0;
  const lostAcknowledged: string[] = [];
  const labelsBySeq = new Map<string, Map<number, string>>();
  for (const [runId, history] of evidence.histories) {
    const plan = evidence.plans.get(runId)!;
    const labels = labelHistory(history);
    labelsBySeq.set(runId, labels);
    const seqs = new Set(history.map((r) => r.seq));
    const last = Math.max(-1, ...seqs);
    for (let seq = 0; seq < last; seq++) {
      if (!seqs.has(seq)) lostSteps.push(`${runId} #${seq} is missing (the history has #${last})`);
    }
    for (const record of history) {
      if (record.status !== 'completed')
        lostSteps.push(`${runId} #${record.seq} is ${record.status}`);
    }
    const waits = (plan.sleep === undefined ? 0 : 1) + (plan.approval ? 1 : 0);
    missingSteps += Math.max(0, plannedSteps(plan).length + waits - history.length);
    const recorded = [...labels.values()];
    for (const step of plannedSteps(plan)) {
      if (!recorded.includes(step)) lostSteps.push(`${runId} ${step} has no checkpoint`);
    }
  }
  const acknowledged = evidence.events.flat().filter((e) => e.name === 'step.completed');
  for (const event of acknowledged) {
    const [runId, seqText, step] = event.fields;
    const history = evidence.histories.get(runId);
    if (!history) continue;
    const stored = history.find((r) => r.seq === Number(seqText));
    if (!stored || stored.name !== step) lostAcknowledged.push(`${runId} #${seqText} ${step}`);
  }

  const executions = new Map<string, Array<{ at: number }>>();
  for (const entry of evidence.ledger) {
    const key = `${entry.runId} ${entry.step}`;
    executions.set(key, [...(executions.get(key) ?? []), { at: entry.at }]);
  }
  const committedBefore = (runId: string, step: string, at: number): boolean => {
    const seq = [...(labelsBySeq.get(runId) ?? new Map<number, string>())].find(
      ([, l]) => l === step,
    )?.[0];
    return acknowledged.some(
      (e) => e.fields[0] === runId && Number(e.fields[1]) === seq && e.at < at,
    );
  };
  const killAt = evidence.killAt;
  const inFlight = (runId: string, step: string, firstAt: number): boolean =>
    killAt !== undefined && firstAt < killAt && !committedBefore(runId, step, killAt);
  let inFlightAtKill = 0;
  const reRuns: ReRun[] = [];
  for (const [key, runs] of executions) {
    const [runId, step] = key.split(' ');
    const first = runs[0].at;
    if (inFlight(runId, step, first)) inFlightAtKill++;
    if (runs.length > 1) {
      reRuns.push({
        runId,
        step,
        executions: runs.length,
        inFlightAtKill: inFlight(runId, step, first),
      });
    }
  }
  return {
    runs: evidence.runIds.length,
    completed: evidence.results.size,
    lostSteps,
    missingSteps,
    lostAcknowledged,
    reRuns,
    bodies: evidence.ledger.length,
    inFlightAtKill,
  };
}

/** seq → ledger label, for the step records of a history (waits have no label). */
function labelHistory(history: StepRecord[]): Map<number, string> {
  const labels = new Map<number, string>();
  let stage = 0;
  for (const record of history) {
    if (record.name === 'stage') labels.set(record.seq, `stage-${++stage}`);
    else if (record.name === 'charge') labels.set(record.seq, 'charge');
    else if (record.name === 'issueInvoice') labels.set(record.seq, 'invoice');
  }
  return labels;
}
