/**
 * Concurrent runs in one process (issue 24): C = 1, 16, 64 runs of 50 sequential steps started
 * at once, steps per second, for waymark with group commit (its default) and without, the
 * one-commit floor (one autocommit INSERT per step, a pool of 10), the group-commit floor (rows
 * queued while a commit is in flight go in the next one, on one connection) and DBOS, each
 * system in a process of its own (concurrencyChild.ts), taking turns round by round.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { concurrencySystems } from './concurrencySystems';
import { BENCH_DIR } from './lib/install';
import { median } from './lib/stats';
import { systemKey } from './perStepSystems';

export const CONCURRENCY = [1, 16, 64];

/** One system's steps per second by C, one entry per round. */
export interface ConcurrencyResult {
  readonly label: string;
  readonly db: string;
  readonly rates: Record<number, number[]>;
}

/** Runs every system `rounds` times, in turn, each time in a fresh process. */
export function measureConcurrency(dir: string, rounds: number): ConcurrencyResult[] {
  mkdirSync(join(dir, 'concurrency'), { recursive: true });
  const results = concurrencySystems(dir).map((s) => ({
    label: s.label,
    db: s.db,
    key: systemKey(s),
    rates: Object.fromEntries(CONCURRENCY.map((c) => [c, [] as number[]])),
  }));
  for (let round = 0; round < rounds; round++) {
    for (const result of results) {
      const out = execFileSync(
        process.execPath,
        [
          '-r',
          '@swc-node/register',
          join(BENCH_DIR, 'concurrencyChild.ts'),
          dir,
          result.key,
          ...CONCURRENCY.map(String),
        ],
        { cwd: join(BENCH_DIR, '..'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (!line) throw new Error(`${result.key}: no RESULT line in ${out}`);
      const rates = JSON.parse(line.slice('RESULT '.length)) as Record<string, number>;
      for (const c of CONCURRENCY) result.rates[c].push(rates[c]);
    }
  }
  return results;
}

/** The median rate of `result` at `c`. */
export const rateAt = (result: ConcurrencyResult, c: number): number => median(result.rates[c]);
