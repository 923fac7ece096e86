import type { BodyEntry } from '../fixtures/BodyLog';

/**
 * Where a killed process was when the kill landed, from its stdout and its body log
 * entries: `in <step>` (a body started, no checkpoint reported), `after <step>` (waiting,
 * sleeping or between steps), still opening / replaying the run, or closing once it reported
 * how the run ended.
 */
export function killPhase(pid: number, lines: readonly string[], bodies: BodyEntry[]): string {
  const ended = lines.find(
    (l) => l === 'released' || l.startsWith('result ') || l.startsWith('parked '),
  );
  if (ended !== undefined) return `closing after "${ended.split(' ')[0]}"`;
  const started = bodies.filter((b) => b.pid === pid).map((b) => b.step);
  const completed = lines.filter((l) => l.startsWith('completed ')).map((l) => l.split(' ')[2]);
  const last = started.at(-1);
  if (last !== undefined && !completed.includes(last)) return `in ${last}`;
  const done = completed.at(-1) ?? last;
  if (done !== undefined) return `after ${done}`;
  const took = lines.some((l) => l === 'started' || l.startsWith('resumed '));
  return took ? 'replaying the history' : 'opening the runtime';
}
