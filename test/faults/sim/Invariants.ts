import type { Evidence, StoredStep } from './Evidence';
import {
  AT_MOST_ONCE_STEP,
  chunkOf,
  expectedResult,
  KEYED_STEP,
  SIM_STEPS,
  TRANSACTIONAL_STEP,
  type SimSpec,
} from './SimFlow';
import type { LedgerEntry } from './SimLedger';

/** An invariant a schedule broke, and how. */
export interface Violation {
  readonly invariant: string;
  readonly detail: string;
}

type Body = Extract<LedgerEntry, { k: 'body' }>;

/** A body execution and when it ended (returned, threw, or its process died). */
interface BodySpan {
  readonly body: Body;
  readonly end: number;
}

/**
 * The promises the simulator holds waymark to, checked from the database and from the ledger
 * kept outside it:
 * - every run completes, with the result it has when nothing goes wrong;
 * - no step body runs again once its checkpoint committed (under a later claim, or after the
 *   commit under the same one);
 * - an at-most-once step's body runs at most once, and its outcome is unknown only when no
 *   process heard its checkpoint commit;
 * - a global idempotency key's body runs again only before its result was committed, and every
 *   run under the key gets that one result;
 * - a transactional step leaves exactly one application row, the one committed with its
 *   checkpoint;
 * - each stream has offsets 0, 1, 2, … with no gap, and holds each chunk once after restarts;
 * - two claims of one run never run bodies at the same time unless the earlier holder was hit
 *   by a fault that made it look gone (paused, cut off, its replies delayed).
 */
export function checkInvariants(evidence: Evidence): Violation[] {
  const violations: Violation[] = [];
  const fail = (invariant: string, detail: string): void => {
    violations.push({ invariant, detail });
  };
  const bodies = evidence.ledger.filter((e): e is Body => e.k === 'body');
  const committed = evidence.ledger.filter((e) => e.k === 'committed');
  const byToken = new Map(bodies.map((b) => [b.token, b]));
  const spans = bodySpans(evidence, bodies);

  if (evidence.timedOut) fail('completes', 'some runs had not ended when the settle time was up');
  for (const spec of evidence.plan.runs) {
    const steps = evidence.steps.filter((s) => s.runId === spec.runId);
    checkResult(evidence, spec, committed, fail);
    for (const step of steps) checkNotRerun(step, bodies, committed, byToken, fail);
    checkAtMostOnce(spec, bodies, fail);
    checkTransactional(evidence, spec, steps, fail);
    checkStream(evidence, spec, fail);
    checkOverlap(
      evidence,
      spans.filter((s) => s.body.run === spec.runId),
      fail,
    );
  }
  checkKeys(evidence, bodies, committed, byToken, fail);
  return violations;
}

type Fail = (invariant: string, detail: string) => void;

function checkResult(
  evidence: Evidence,
  spec: SimSpec,
  committed: readonly LedgerEntry[],
  fail: Fail,
): void {
  const run = evidence.runs.find((r) => r.id === spec.runId);
  if (!run) return fail('completes', `run ${spec.runId} is not stored`);
  if (run.status !== 'completed') {
    return fail('completes', `run ${spec.runId} ended ${run.status}: ${run.error ?? ''}`);
  }
  const expected = expectedResult(spec);
  const got = run.result!;
  if (got.charge === 'unknown') {
    const seq = SIM_STEPS.indexOf(AT_MOST_ONCE_STEP);
    const heard = committed.some(
      (c) => c.k === 'committed' && c.run === spec.runId && c.seq === seq,
    );
    if (heard) {
      fail('at most once', `run ${spec.runId}: the charge committed, yet its outcome is unknown`);
    }
  }
  const compared = { ...got, charge: got.charge === 'unknown' ? 'charged' : got.charge };
  if (JSON.stringify(compared) !== JSON.stringify(expected)) {
    fail(
      'completes',
      `run ${spec.runId} returned ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`,
    );
  }
}

/** No body of a step runs after its checkpoint committed (keyed steps: see checkKeys). */
function checkNotRerun(
  step: StoredStep,
  bodies: readonly Body[],
  committed: readonly LedgerEntry[],
  byToken: ReadonlyMap<string, Body>,
  fail: Fail,
): void {
  if (step.status !== 'completed') return;
  const where = `${step.runId} #${step.seq} ${step.name}`;
  if (step.token === undefined) return fail('ledger', `${where}: the stored output has no token`);
  const stored = byToken.get(step.token);
  if (!stored) return fail('ledger', `${where}: no body ran with the stored token ${step.token}`);
  if (stored.run !== step.runId) return; // another run's result, under a global key
  const same = bodies.filter((b) => b.run === step.runId && b.seq === step.seq);
  for (const later of same.filter((b) => b.epoch > stored.epoch)) {
    fail(
      'committed once',
      `${where}: its checkpoint committed under epoch ${stored.epoch} (worker ${stored.worker}), ` +
        `yet its body ran again under epoch ${later.epoch} (worker ${later.worker}) at +${later.t - stored.t} ms`,
    );
  }
  const heard = committed.find(
    (c) =>
      c.k === 'committed' &&
      c.run === step.runId &&
      c.seq === step.seq &&
      c.worker === stored.worker &&
      c.life === stored.life,
  );
  for (const later of same.filter((b) => heard && b.t > heard.t && b.epoch === stored.epoch)) {
    fail(
      'committed once',
      `${where}: its body ran again (${later.token}) after its checkpoint committed`,
    );
  }
}

function checkAtMostOnce(spec: SimSpec, bodies: readonly Body[], fail: Fail): void {
  const seq = SIM_STEPS.indexOf(AT_MOST_ONCE_STEP);
  const ran = bodies.filter((b) => b.run === spec.runId && b.seq === seq);
  if (ran.length > 1) {
    fail(
      'at most once',
      `${spec.runId} #${seq} ${AT_MOST_ONCE_STEP} ran ${ran.length} times ` +
        `(epochs ${ran.map((b) => b.epoch).join(', ')})`,
    );
  }
}

function checkKeys(
  evidence: Evidence,
  bodies: readonly Body[],
  committed: readonly LedgerEntry[],
  byToken: ReadonlyMap<string, Body>,
  fail: Fail,
): void {
  const seq = SIM_STEPS.indexOf(KEYED_STEP);
  for (const key of new Set(evidence.plan.runs.map((r) => r.key))) {
    const runs = new Set(evidence.plan.runs.filter((r) => r.key === key).map((r) => r.runId));
    const rows = evidence.steps.filter(
      (s) => runs.has(s.runId) && s.seq === seq && s.status === 'completed',
    );
    const tokens = new Set(rows.map((s) => s.token));
    if (tokens.size > 1) {
      fail('key once', `key ${key}: its runs got ${tokens.size} different results`);
      continue;
    }
    const owner = byToken.get([...tokens][0] ?? '');
    if (!owner) continue;
    const heard = committed.find(
      (c) =>
        c.k === 'committed' &&
        c.run === owner.run &&
        c.seq === owner.seq &&
        c.worker === owner.worker &&
        c.life === owner.life,
    );
    if (!heard) continue;
    for (const later of bodies.filter((b) => b.key === key && b.t > heard.t)) {
      fail(
        'key once',
        `key ${key}: completed by ${owner.run} at +0 ms, yet ${later.run} ran its body at +${later.t - heard.t} ms`,
      );
    }
  }
}

function checkTransactional(
  evidence: Evidence,
  spec: SimSpec,
  steps: readonly StoredStep[],
  fail: Fail,
): void {
  const rows = evidence.orders.filter((o) => o.runId === spec.runId);
  const step = steps.find((s) => s.name === TRANSACTIONAL_STEP && s.status === 'completed');
  if (!step) return;
  if (rows.length !== 1) {
    return fail('one row', `${spec.runId}: ${rows.length} application rows, not 1`);
  }
  if (rows[0].token !== step.token) {
    fail(
      'one row',
      `${spec.runId}: the row's token ${rows[0].token} is not the checkpoint's ${step.token}`,
    );
  }
}

function checkStream(evidence: Evidence, spec: SimSpec, fail: Fail): void {
  const entries = evidence.streams.get(spec.runId) ?? [];
  entries.forEach((entry, index) => {
    if (entry.offset !== index)
      fail('stream', `${spec.runId}: offset ${entry.offset} at position ${index}`);
  });
  const seq = SIM_STEPS.indexOf('emit');
  let chunks: string[] = [];
  for (const entry of entries) {
    if (entry.seq !== seq) continue;
    if (entry.restart) chunks = [];
    else chunks.push(entry.chunk);
  }
  const expected = Array.from({ length: spec.chunks }, (_, i) => chunkOf(spec.runId, i));
  if (JSON.stringify(chunks) !== JSON.stringify(expected)) {
    fail(
      'stream',
      `${spec.runId}: read ${JSON.stringify(chunks)} after restarts, not ${JSON.stringify(expected)}`,
    );
  }
}

/** Bodies of one run under two claims at once, the earlier holder untouched by any fault. */
function checkOverlap(evidence: Evidence, spans: readonly BodySpan[], fail: Fail): void {
  const { leaseMs, storeRetryTimeoutMs } = evidence.plan;
  const excuseMs = 3 * leaseMs + storeRetryTimeoutMs;
  const sharedWriteLock = evidence.plan.backend === 'sqlite-file';
  for (const a of spans) {
    for (const b of spans) {
      if (a.body.epoch >= b.body.epoch) continue;
      const from = Math.max(a.body.t, b.body.t);
      if (from >= Math.min(a.end, b.end)) continue;
      const hit = (at: number): boolean => at >= from - excuseMs && at <= from;
      // SQLite has one write lock for the file: a stopped process that holds it stalls every
      // other worker's lease renewal, so a stop of any worker excuses a take-over there.
      const stalls = (f: { worker: number; kind: string }): boolean =>
        f.worker === a.body.worker || (sharedWriteLock && f.kind === 'sigstop');
      // A worker's own stall (its event loop starved), or on SQLite any worker's, is a stop.
      const excused =
        evidence.injected.some((f) => stalls(f) && hit(f.at)) ||
        evidence.ledger.some(
          (e) =>
            e.k === 'fault' &&
            hit(e.t) &&
            ((e.worker === a.body.worker && e.life === a.body.life) ||
              (sharedWriteLock && e.fault === 'stall')),
        );
      if (excused) continue;
      fail(
        'no overlap',
        `${a.body.run}: ${a.body.step} under epoch ${a.body.epoch} (worker ${a.body.worker}) and ` +
          `${b.body.step} under epoch ${b.body.epoch} (worker ${b.body.worker}) ran at once, ` +
          `with no fault on worker ${a.body.worker}`,
      );
    }
  }
}

function bodySpans(evidence: Evidence, bodies: readonly Body[]): BodySpan[] {
  const ends = new Map<string, number>();
  for (const e of evidence.ledger) if (e.k === 'end') ends.set(e.token, e.t);
  return bodies.map((body) => ({
    body,
    end: ends.get(body.token) ?? evidence.deaths.get(`${body.worker}:${body.life}`) ?? Infinity,
  }));
}
