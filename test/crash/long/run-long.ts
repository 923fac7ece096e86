/**
 * The long run of the randomized SIGKILL harness (`npm run test:crash:long`): the same code
 * as `test/crash/randomized-sigkill-*.test.ts`, with 1,000 kills per backend, on a SQLite
 * file, on MariaDB (127.0.0.1:3306, root) and on PostgreSQL (127.0.0.1:5432, postgres).
 * Prints a line per run, then a summary; exits 1 on any violation.
 *
 *   WAYMARK_CRASH_KILLS=60 npm run test:crash:long         a short trial
 *   WAYMARK_CRASH_SEED=123456 npm run test:crash:long      replay a schedule
 *   WAYMARK_CRASH_BACKENDS=postgres npm run test:crash:long one backend (sqlite-file, mariadb, postgres)
 *   WAYMARK_CRASH_VERBOSE=1 npm run test:crash:long        each run's kill schedule too
 */
import 'reflect-metadata';
import type { Backend } from '../../support/databases';
import {
  describeFailures,
  runCrashHarness,
  settingsFromEnv,
  type HarnessReport,
} from '../support/Harness';
import { runChild } from '../../support/runChild';

const DEFAULT_KILLS = 1000;
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

async function main(): Promise<void> {
  const settings = settingsFromEnv(DEFAULT_KILLS);
  const { kills, seed } = settings;
  const backends = backendsFromEnv();
  const say = (line: string): void => void process.stdout.write(`${line}\n`);
  const verbose = process.env.WAYMARK_CRASH_VERBOSE === '1';
  const progress = (line: string, schedule: readonly string[]): void =>
    say(verbose ? `${line}\n  ${schedule.join('\n  ')}` : line);
  say(
    `randomized SIGKILL harness: ${kills} kills per backend, seed ${seed}, ${new Date().toISOString()}`,
  );
  const reports: HarnessReport[] = [];
  for (const backend of backends) {
    reports.push(await runCrashHarness({ backend, ...settings, progress }));
  }
  say('');
  for (const report of reports) say(summary(report));
  const failed = reports.filter((r) => r.failures.length > 0 || r.kills < kills);
  for (const report of failed) say(`\n${describeFailures(report)}`);
  say(failed.length === 0 ? '\nPASS: no violation' : '\nFAIL');
  process.exitCode = failed.length === 0 ? 0 : 1;
}

/** `WAYMARK_CRASH_BACKENDS`, checked: a misspelt name must not pass by running nothing. */
function backendsFromEnv(): Backend[] {
  const only = process.env.WAYMARK_CRASH_BACKENDS?.split(',');
  if (!only) return BACKENDS;
  const unknown = only.filter((name) => !(BACKENDS as string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `WAYMARK_CRASH_BACKENDS: unknown ${unknown.join(', ')}; known: ${BACKENDS.join(', ')}`,
    );
  }
  return BACKENDS.filter((b) => only.includes(b));
}

function summary(r: HarnessReport): string {
  const seconds = r.elapsedMs / 1000;
  const duplicates = r.counts.duplicate;
  const lost = r.counts.lost;
  return [
    `${r.backend}:`,
    `  kills                      ${r.kills}`,
    `  recoveries                 ${r.recoveries} (a killed process's successor resumed the stored run)`,
    `  processes                  ${r.processes}`,
    `  runs completed             ${r.runsCompleted}`,
    `  duplicates found           ${duplicates}`,
    `  lost steps                 ${lost}`,
    `  retry budget exceeded      ${r.counts.budget}`,
    `  other mismatches           ${r.counts.mismatch}`,
    `  unknown outcomes resolved  ${r.resolutions} (resolveStep), ${r.operatorRetries} re-sent (retry)`,
    `  elapsed                    ${seconds.toFixed(1)} s (${(r.elapsedMs / Math.max(1, r.kills)).toFixed(0)} ms per kill)`,
    `  date                       ${new Date().toISOString()}`,
    `  seed                       ${r.seed}`,
    `  kills landed               ${phases(r.phases)}`,
  ].join('\n');
}

function phases(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .map(([phase, n]) => `${phase} ${n}`)
    .join(', ');
}

runChild(main);
