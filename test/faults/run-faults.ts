/**
 * `npm run test:faults [-- --seed N | --from A --to B | --long] [--backend sqlite-file|mariadb|postgres]`
 *
 * Runs the seeded fault simulator outside jest: one seed (to replay a failure), a range, or
 * `--long` (seeds 1–1000 per backend, for hours). Prints one line per schedule, the report of
 * every failing one, and a summary of schedules, faults by kind and violations, which
 * FAULTS.md publishes. Exits 1 when any invariant broke.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import type { SimBackend } from './sim/FaultPlan';
import { runSchedule, type ScheduleOutcome } from './sim/runSchedule';

const BACKENDS: SimBackend[] = ['sqlite-file', 'mariadb', 'postgres'];

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? undefined : process.argv[at + 1];
}

async function main(): Promise<void> {
  const one = argument('seed');
  const long = process.argv.includes('--long');
  const from = Number(one ?? argument('from') ?? 1);
  const to = Number(one ?? argument('to') ?? (long ? 1000 : 10));
  const backend = argument('backend') as SimBackend | undefined;
  if (backend && !BACKENDS.includes(backend)) {
    throw new Error(`--backend must be one of ${BACKENDS.join(', ')}; got "${backend}"`);
  }
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to < from) {
    throw new Error('--seed, --from and --to take whole numbers, with --from ≤ --to');
  }
  const outcomes: ScheduleOutcome[] = [];
  for (let seed = from; seed <= to; seed++) {
    for (const b of backend ? [backend] : BACKENDS) {
      const outcome = await runSchedule(seed, b);
      outcomes.push(outcome);
      const faults = Object.values(outcome.figures.faults).reduce((a, n) => a + n, 0);
      console.log(
        `${b} seed ${seed}: ${outcome.violations.length === 0 ? 'ok' : `${outcome.violations.length} VIOLATIONS`}` +
          ` (${faults} faults, ${outcome.figures.takeovers} takeovers, ${outcome.figures.ms} ms)`,
      );
      if (outcome.violations.length > 0 || one !== undefined) console.log(outcome.report);
    }
  }
  const summary = summarize(outcomes);
  console.log(summary);
  const out = argument('out');
  if (out) writeFileSync(out, `${summary}\n`);
  if (outcomes.some((o) => o.violations.length > 0)) process.exitCode = 1;
}

function summarize(outcomes: readonly ScheduleOutcome[]): string {
  const lines = [
    '| backend | schedules | runs | step bodies | takeovers | faults | violations |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  const kinds: Record<string, number> = {};
  for (const b of BACKENDS) {
    const mine = outcomes.filter((o) => o.backend === b);
    if (mine.length === 0) continue;
    const sum = (f: (o: ScheduleOutcome) => number): number => mine.reduce((a, o) => a + f(o), 0);
    for (const o of mine)
      for (const [k, n] of Object.entries(o.figures.faults)) kinds[k] = (kinds[k] ?? 0) + n;
    lines.push(
      `| ${b} | ${mine.length} | ${sum((o) => o.figures.runs)} | ${sum((o) => o.figures.bodies)} | ` +
        `${sum((o) => o.figures.takeovers)} | ${sum((o) => Object.values(o.figures.faults).reduce((a, n) => a + n, 0))} | ` +
        `${sum((o) => o.violations.length)} |`,
    );
  }
  lines.push(
    '',
    'Faults by kind:',
    ...Object.entries(kinds)
      .sort()
      .map(([k, n]) => `- ${k}: ${n}`),
  );
  return lines.join('\n');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
