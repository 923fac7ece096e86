/**
 * One system of the concurrency section, alone in this process: opens it, warms it up with
 * three untimed passes of the workload at every C, then for each C warms up again at that C
 * and starts C runs of STEPS sequential steps at once and times them to the last, seven
 * times, and reports the median.
 * Prints one line, `RESULT <json>`: steps per second by C.
 *
 * Usage (from concurrency.ts): node -r @swc-node/register bench/concurrencyChild.ts <dir> <key> <C>...
 */
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { concurrencySystems } from './concurrencySystems';
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
    for (let pass = 0; pass < WARM_UP_PASSES; pass++) {
      for (const c of cs.map(Number)) {
        await Promise.all(Array.from({ length: c }, () => system.run(STEPS)));
      }
    }
    // Timed: the median of several passes at each C. One pass of 64 × 50 steps lasts under a
    // tenth of a second, so one GC pause or one stall of the shared machine moves it by half.
    const rates: Record<string, number> = {};
    for (const c of cs.map(Number)) {
      for (let steps = 0; steps < WARM_UP_STEPS_AT_C; steps += c * STEPS) {
        await Promise.all(Array.from({ length: c }, () => system.run(STEPS)));
      }
      const passes: number[] = [];
      for (let pass = 0; pass < TIMED_PASSES; pass++) {
        const start = performance.now();
        await Promise.all(Array.from({ length: c }, () => system.run(STEPS)));
        passes.push((c * STEPS) / ((performance.now() - start) / 1000));
      }
      rates[c] = median(passes);
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
