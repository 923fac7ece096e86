import { appendFileSync } from 'node:fs';
import type { FleetEvidence } from './FleetRun';

/**
 * `Date.now()` of the first checkpoint committed by a step that began after `at` (any
 * worker's, or the one at `workerIndex`); Infinity when none was. A step that began after a
 * kill wrote its checkpoint through a connection made or checked after it, so this is "the
 * first step committed on the surviving node / the new primary". A completion merely printed
 * after `at` may be the late answer of the dead server, read by a busy event loop.
 */
export function firstCommitAfter(
  evidence: FleetEvidence,
  at: number,
  workerIndex?: number,
): number {
  const indexes = workerIndex === undefined ? evidence.events.map((_, i) => i) : [workerIndex];
  let first = Infinity;
  for (const i of indexes) {
    const events = evidence.events[i];
    const startedAfter = new Set(
      events
        .filter((e) => e.name === 'step.started' && e.at > at)
        .map((e) => `${e.fields[0]} ${e.fields[1]}`),
    );
    for (const e of events) {
      if (e.name !== 'step.completed' || !startedAfter.has(`${e.fields[0]} ${e.fields[1]}`))
        continue;
      first = Math.min(first, e.at);
    }
  }
  return first;
}

/**
 * Prints a scenario's figures on one line (they are the test's by-product, for the README and
 * bench/RESULTS.md) and, when `WAYMARK_CLUSTER_FIGURES` names a file, appends them there as
 * one JSON line.
 */
export function reportFigures(scenario: string, figures: Record<string, number | string>): void {
  const line = Object.entries(figures)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  process.stderr.write(`figures: ${scenario}: ${line}\n`);
  const file = process.env.WAYMARK_CLUSTER_FIGURES;
  if (file) appendFileSync(file, `${JSON.stringify({ scenario, ...figures })}\n`);
}
