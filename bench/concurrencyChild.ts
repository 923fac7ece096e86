/**
 * One system of the concurrency section, alone in this process: opens it, warms it up with
 * three untimed passes of the workload at every C, then for each C warms up again at that C
 * and starts C runs of STEPS sequential steps at once and times them to the last, seven
 * times, and reports the median.
 * Prints one line, `RESULT <json>`: steps per second by C.
 *
 * With `--serve` instead of the Cs, it stays open after the warm-up and answers each line
 * `run <C> <passes>` on stdin with one `BLOCK <rate>` line, the median of that many timed
 * passes at C (warmed up at C first, the first time C is asked for), until stdin ends: the
 * paired ratios at C = 64 alternate such processes block by block (pairedRatio.ts).
 *
 * Usage (from concurrency.ts): node -r @swc-node/register bench/concurrencyChild.ts <dir> <key> <C>...
 *                              node -r @swc-node/register bench/concurrencyChild.ts <dir> <key> --serve
 */
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { concurrencySystems } from './concurrencySystems';
import { CONCURRENCY } from './concurrency';
import type { System } from './lib/workload';
import { median } from './lib/stats';
import { systemKey } from './perStepSystems';

export const STEPS = 50;
/** Untimed passes of every C before the timed ones. */
export const WARM_UP_PASSES = 3;
/**
 * Untimed steps at each C just before it is timed: after passes at C = 64 the JIT is still
 * recompiling for one run at a time (measured: twice the CPU a step for the first 750 steps
 * at C = 1), which the timed passes at C = 1 would otherwise pay for.
 */
export const WARM_UP_STEPS_AT_C = 2000;
/** Timed passes at each C; the child reports their median. */
export const TIMED_PASSES = 7;

/** C runs of STEPS steps at once, to the last. */
const pass = (system: System, c: number): Promise<unknown> =>
  Promise.all(Array.from({ length: c }, () => system.run(STEPS)));

/** Untimed steps at C, just before C is timed (see {@link WARM_UP_STEPS_AT_C}). */
async function warmUpAt(system: System, c: number): Promise<void> {
  for (let steps = 0; steps < WARM_UP_STEPS_AT_C; steps += c * STEPS) await pass(system, c);
}

/** The median steps per second of `passes` timed passes at C. */
async function timed(system: System, c: number, passes: number): Promise<number> {
  const rates: number[] = [];
  for (let i = 0; i < passes; i++) {
    const start = performance.now();
    await pass(system, c);
    rates.push((c * STEPS) / ((performance.now() - start) / 1000));
  }
  return median(rates);
}

/** Answers `run <C> <passes>` lines until stdin ends (see the top of this file). */
async function serve(system: System): Promise<void> {
  const warm = new Set<number>();
  process.stdout.write('READY\n');
  for await (const line of createInterface({ input: process.stdin })) {
    const [, c, passes] = (/^run (\d+) (\d+)$/.exec(line) ?? []).map(Number);
    if (!c || !passes) throw new Error(`expected "run <C> <passes>", got "${line}"`);
    if (!warm.has(c)) await warmUpAt(system, c);
    warm.add(c);
    process.stdout.write(`BLOCK ${await timed(system, c, passes)}\n`);
  }
}

async function main(): Promise<void> {
  const [dir, key, ...cs] = process.argv.slice(2);
  process.noDeprecation = true;
  const system = concurrencySystems(dir).find((s) => systemKey(s) === key);
  if (!system) throw new Error(`no system "${key}"`);
  await system.open();
  try {
    // Warm-up: untimed passes of the same workload, so the JIT, the statement caches and
    // the pools have seen every C before the timed pass (a service runs for hours; the
    // first seconds of a process are not what it sustains).
    const serving = cs[0] === '--serve';
    const warmCs = serving ? CONCURRENCY : cs.map(Number);
    for (let round = 0; round < WARM_UP_PASSES; round++) {
      for (const c of warmCs) await pass(system, c);
    }
    if (serving) return await serve(system);
    // Timed: the median of several passes at each C. One pass of 64 × 50 steps lasts under a
    // tenth of a second, so one GC pause or one stall of the shared machine moves it by half.
    const rates: Record<string, number> = {};
    for (const c of cs.map(Number)) {
      await warmUpAt(system, c);
      rates[c] = await timed(system, c, TIMED_PASSES);
    }
    process.stdout.write(`RESULT ${JSON.stringify(rates)}\n`);
  } finally {
    await system.close();
  }
}

if (require.main === module)
  main().catch((error: unknown) => {
    process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
    process.exit(1);
  });
