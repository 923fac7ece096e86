import { isDeepStrictEqual } from 'node:util';
import type { RunStatus, StepRecord } from 'waymark';
import type { Effect } from 'waymark/testing';
import type { BodyEntry } from '../fixtures/BodyLog';
import { chargeEffect } from '../fixtures/FakeGateway';
import { noticeEffect } from '../fixtures/FakeMailer';
import {
  APPROVAL,
  FAILING_QUOTE_ATTEMPTS,
  MAX_QUOTE_ATTEMPTS,
  ORDER_ID,
  RUN_ID,
  SLEEP_MS,
  type MixedResult,
} from '../fixtures/MixedOrder';

/**
 * What a violation broke: an effect or a checkpointed step happened twice, something was
 * lost (a step, a signal, an effect), a retry budget was exceeded, or the run differs from
 * the uninterrupted one.
 */
export type ViolationKind = 'duplicate' | 'lost' | 'budget' | 'mismatch';

export interface Violation {
  kind: ViolationKind;
  message: string;
}

/** Everything the stores and the processes left of one run, read once it is over. */
export interface RunEvidence {
  status: RunStatus;
  result: MixedResult | undefined;
  history: StepRecord[];
  effects: Effect[];
  bodies: BodyEntry[];
  signals: Array<{ name: string; consumedSeq: number | null }>;
  /** The processes in the order they ran (one at a time), and whether the harness killed each. */
  children: Array<{ pid: number; killed: boolean; lines: string[] }>;
  signalsSent: number;
  operatorRetries: number;
  /** The harness's own pid: no step body may run there. */
  harnessPid: number;
}

/** The result with what differs by design (pids) removed. */
export interface Outcome {
  orderId: string;
  approval: unknown;
  steps: Record<string, string>;
}

/** What every run must end with: the uninterrupted run's outcome and step names. */
export interface Reference {
  outcome: Outcome;
  steps: string[];
}

const RETRIED = 'fetchQuote';
const AT_MOST_ONCE = 'notifyCustomer';
const PARALLEL = ['reserveStock', 'screenFraud'];

export function outcomeOf(result: MixedResult): Outcome {
  const steps = Object.entries(result.steps).map(([name, s]) => [name, s.value]);
  return { orderId: result.orderId, approval: result.approval, steps: Object.fromEntries(steps) };
}

export function referenceOf(evidence: RunEvidence): Reference {
  if (!evidence.result) throw new Error(`the reference run ended ${evidence.status}`);
  return { outcome: outcomeOf(evidence.result), steps: evidence.history.map((s) => s.name) };
}

/** Where the at-most-once step sits in the reference: the one step a run may park at. */
export function parkableSeq(reference: Reference): number {
  return reference.steps.indexOf(AT_MOST_ONCE);
}

/** Every way the run broke a guarantee, compared with the uninterrupted `reference`. */
export function checkRun(e: RunEvidence, reference: Reference): Violation[] {
  const found: Violation[] = [];
  const report = (kind: ViolationKind, message: string): void => void found.push({ kind, message });
  checkOutcome(e, reference, report);
  checkSignal(e, reference, report);
  checkEffects(e, report);
  checkBodies(e, reference, report);
  checkRetryBudget(e, report);
  return found;
}

type Report = (kind: ViolationKind, message: string) => void;

function checkOutcome(e: RunEvidence, reference: Reference, report: Report): void {
  if (e.status !== 'completed' || !e.result) {
    report('lost', `the run ended ${e.status}, not completed`);
  } else if (!isDeepStrictEqual(outcomeOf(e.result), reference.outcome)) {
    report(
      'mismatch',
      `result ${JSON.stringify(outcomeOf(e.result))} differs from the uninterrupted ` +
        JSON.stringify(reference.outcome),
    );
  }
  const names = e.history.map((s) => s.name);
  if (!isDeepStrictEqual(names, reference.steps)) {
    report('mismatch', `steps ${names.join(', ')} differ from ${reference.steps.join(', ')}`);
  }
  for (const step of e.history) {
    if (step.status !== 'completed')
      report('lost', `step #${step.seq} ${step.name} is ${step.status}`);
    const budget = step.name === RETRIED ? MAX_QUOTE_ATTEMPTS : 1;
    if (step.attempts > budget) {
      report('budget', `step ${step.name} recorded ${step.attempts} attempts, over ${budget}`);
    }
    if (step.name === 'sleep' && (step.durationMs ?? 0) < SLEEP_MS) {
      report('mismatch', `the ${SLEEP_MS} ms sleep lasted ${String(step.durationMs)} ms`);
    }
  }
  const quote = e.history.find((s) => s.name === RETRIED);
  if (quote && quote.attempts !== FAILING_QUOTE_ATTEMPTS + 1) {
    report(
      'budget',
      `${RETRIED} recorded ${quote.attempts} attempts, not ${FAILING_QUOTE_ATTEMPTS + 1}`,
    );
  }
}

/** The approval was sent once, stored once, consumed by the wait at its seq, and returned. */
function checkSignal(e: RunEvidence, reference: Reference, report: Report): void {
  const seq = reference.steps.indexOf('signal:approval');
  if (e.signalsSent !== 1) report('mismatch', `the harness sent ${e.signalsSent} approvals, not 1`);
  const approvals = e.signals.filter((s) => s.name === 'approval');
  if (approvals.length === 0) report('lost', 'no approval signal is stored');
  if (approvals.length > 1) report('duplicate', `${approvals.length} approval signals are stored`);
  for (const signal of approvals) {
    if (signal.consumedSeq !== seq) {
      report('lost', `the approval was consumed by ${String(signal.consumedSeq)}, not by #${seq}`);
    }
  }
  if (e.result && !isDeepStrictEqual(e.result.approval, APPROVAL)) {
    report('lost', `the wait returned ${JSON.stringify(e.result.approval)}, not the approval sent`);
  }
}

/** One real charge, under the step's stable key, and one mail. */
function checkEffects(e: RunEvidence, report: Report): void {
  const expected = [chargeEffect(`${RUN_ID}:charge-${ORDER_ID}`), noticeEffect(ORDER_ID)];
  for (const key of expected) {
    const times = e.effects.filter((effect) => effect.key === key).length;
    if (times === 0) report('lost', `effect ${key} never happened`);
    if (times > 1) report('duplicate', `effect ${key} happened ${times} times`);
  }
  for (const effect of e.effects.filter((x) => !expected.includes(x.key))) {
    report(
      'duplicate',
      `unexpected effect ${effect.key} (pid ${effect.pid}): a charge under another key`,
    );
  }
}

/**
 * The body log against the checkpoints. Processes run one after another and each loads the
 * history when it takes the run, so it sees every checkpoint committed before it started.
 * The result stamps each step with the pid whose execution was checkpointed: if that is
 * the c-th process, then for every step
 *  - process c executed it, and no process after c did (it would have replayed the checkpoint);
 *  - a process before c executed it only if it was killed with that step in flight (one
 *    step, or the `Promise.all` pair);
 *  - every execution used the step's one idempotency key;
 * and a process printed `completed` only for steps whose checkpoint holds its pid.
 */
function checkBodies(e: RunEvidence, reference: Reference, report: Report): void {
  const order = new Map(e.children.map((child, index) => [child.pid, index]));
  const inFlight = new Map<number, Set<string>>();
  for (const body of e.bodies.filter((b) => b.pid === e.harnessPid)) {
    report('mismatch', `step ${body.step} ran in the harness process itself`);
  }
  for (const step of Object.keys(reference.outcome.steps)) {
    const runs = e.bodies.filter((b) => b.step === step);
    if (runs.length === 0) report('lost', `the body of ${step} never ran`);
    const key =
      step === 'charge'
        ? `${RUN_ID}:charge-${ORDER_ID}`
        : `${RUN_ID}:${reference.steps.indexOf(step)}`;
    const keys = [...new Set(runs.map((r) => r.key))];
    if (runs.length > 0 && !isDeepStrictEqual(keys, [key])) {
      report('mismatch', `${step} ran under keys ${keys.join(', ')}, not only ${key}`);
    }
    const committer = e.result?.steps[step]?.pid;
    const c = committer === undefined ? undefined : order.get(committer);
    if (c === undefined) {
      if (e.result)
        report('mismatch', `${step} was checkpointed by pid ${String(committer)}, not a child`);
      continue;
    }
    if (!runs.some((r) => r.pid === committer)) {
      report('mismatch', `${step} was checkpointed by #${c}, which never ran its body`);
    }
    for (const run of runs) {
      const index = order.get(run.pid);
      if (index === undefined) continue;
      if (index > c)
        report('duplicate', `${step} was checkpointed by #${c} and ran again in #${index}`);
      if (index < c) inFlight.set(index, new Set([...(inFlight.get(index) ?? []), step]));
    }
    if (step !== RETRIED) {
      const perProcess = runs.filter((r) => r.pid === committer).length;
      if (perProcess > 1) report('duplicate', `${step} ran ${perProcess} times in #${c}`);
    }
  }
  for (const [index, steps] of inFlight) {
    const names = [...steps];
    const pair = names.length === 2 && PARALLEL.every((s) => steps.has(s));
    if (!e.children[index].killed) {
      report('lost', `#${index} ran ${names.join(', ')} without a checkpoint, yet was not killed`);
    } else if (names.length > 1 && !pair) {
      report(
        'duplicate',
        `#${index} was killed with ${names.join(', ')} unfinished: more than in flight`,
      );
    }
  }
  const mails = e.bodies.filter((b) => b.step === AT_MOST_ONCE).length;
  if (mails > 1 + e.operatorRetries) {
    report(
      'duplicate',
      `at-most-once ${AT_MOST_ONCE} ran ${mails} times with ${e.operatorRetries} operator retries`,
    );
  }
  for (const [index, child] of e.children.entries()) {
    for (const line of child.lines.filter((l) => l.startsWith('completed '))) {
      const step = line.split(' ')[2];
      const pid = e.result?.steps[step]?.pid;
      if (pid !== undefined && pid !== child.pid) {
        report('duplicate', `#${index} printed "${line}" but the checkpoint holds pid ${pid}`);
      }
    }
  }
}

/**
 * The retried step's calls, by `ctx.attempt`: each within 1…maxAttempts, each process
 * counting up without repeating, and an attempt run again only when the process running it
 * was killed before its failure was stored (then it was that process's last call).
 */
function checkRetryBudget(e: RunEvidence, report: Report): void {
  const calls = e.bodies.filter((b) => b.step === RETRIED);
  const byPid = new Map<number, number[]>();
  for (const call of calls) {
    if (call.attempt < 1 || call.attempt > MAX_QUOTE_ATTEMPTS) {
      report(
        'budget',
        `${RETRIED} ran attempt ${call.attempt} of ${MAX_QUOTE_ATTEMPTS} (pid ${call.pid})`,
      );
    }
    byPid.set(call.pid, [...(byPid.get(call.pid) ?? []), call.attempt]);
  }
  for (const [pid, attempts] of byPid) {
    if (
      attempts.length > MAX_QUOTE_ATTEMPTS ||
      attempts.some((a, i) => i > 0 && a <= attempts[i - 1])
    ) {
      report('budget', `pid ${pid} ran ${RETRIED} attempts ${attempts.join(', ')}`);
    }
  }
  const expected = Array.from({ length: FAILING_QUOTE_ATTEMPTS + 1 }, (_, i) => i + 1);
  const seen = [...new Set(calls.map((c) => c.attempt))].sort((a, b) => a - b);
  if (calls.length > 0 && !isDeepStrictEqual(seen, expected)) {
    report('budget', `${RETRIED} ran attempts ${seen.join(', ')}, not ${expected.join(', ')}`);
  }
  const killed = new Set(e.children.filter((c) => c.killed).map((c) => c.pid));
  for (const [i, call] of calls.entries()) {
    const again = calls.slice(i + 1).some((later) => later.attempt === call.attempt);
    const last = e.bodies.filter((b) => b.pid === call.pid).at(-1) === call;
    if (again && !(killed.has(call.pid) && last)) {
      report(
        'budget',
        `${RETRIED} attempt ${call.attempt} of pid ${call.pid} ran again after it was stored`,
      );
    }
  }
}
