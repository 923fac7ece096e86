/**
 * One system of the concurrency section, alone in this process: opens it, warms it up with
 * three untimed passes of the workload, then for each C starts C runs of STEPS sequential steps
 * at once and times them to the last.
 * Prints one line, `RESULT <json>`: steps per second by C.
 *
 * Usage (from concurrency.ts): node -r @swc-node/register bench/concurrencyChild.ts <dir> <key> <C>...
 */
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { concurrencySystems } from './concurrencySystems';
import { systemKey } from './perStepSystems';

export const STEPS = 50;
/** Untimed passes of every C before the timed one. */
export const WARM_UP_PASSES = 3;

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
    const rates: Record<string, number> = {};
    for (const c of cs.map(Number)) {
      const start = performance.now();
      await Promise.all(Array.from({ length: c }, () => system.run(STEPS)));
      rates[c] = (c * STEPS) / ((performance.now() - start) / 1000);
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
