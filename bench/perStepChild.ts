/**
 * One system of the per-step section, measured alone in this process (as a user runs it):
 * opens it, warms it up, then for each N times the same N plain async calls (the baseline)
 * and one durable run, counting its statements. Prints one line, `RESULT <json>`.
 *
 * With `--serve` instead of N, it stays open after the warm-up and answers each line
 * `run <n>` on stdin with one `BLOCK <json>` line (a {@link Block}), until stdin ends: the
 * paired floor ratio alternates two such processes block by block (pairedRatio.ts).
 *
 * Usage (from run.ts): node -r @swc-node/register bench/perStepChild.ts <dir> <key> <n>...
 *                      node -r @swc-node/register bench/perStepChild.ts <dir> <key> --serve
 */
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { installCounters, since, snapshot, type StatementCounts } from './lib/counter';
import { baseline } from './lib/workload';
import { perStepSystems, systemKey } from './perStepSystems';

/** Steps run untimed before any measurement, in runs of {@link WARM_UP_RUN}. */
export const WARM_UP_STEPS = 3000;
const WARM_UP_RUN = 50;

/** What one child reports for its system. */
export interface ChildResult {
  /** By N: the baseline and the durable run, in ms. */
  readonly runs: Array<{
    n: number;
    baseline: number;
    ms: number;
    counts: StatementCounts;
    id: string;
  }>;
  readonly storedBytes?: number;
}

/** One block of a served child: `n` steps, and the same `n` plain async calls before it. */
export interface Block {
  readonly n: number;
  readonly baseline: number;
  readonly ms: number;
}

/** Answers `run <n>` lines until stdin ends (see the top of this file). */
async function serve(run: (n: number) => Promise<string>): Promise<void> {
  process.stdout.write('READY\n');
  for await (const line of createInterface({ input: process.stdin })) {
    const n = Number(/^run (\d+)$/.exec(line)?.[1]);
    if (!n) throw new Error(`expected "run <n>", got "${line}"`);
    const base = await baseline(n);
    const start = performance.now();
    await run(n);
    const block: Block = { n, baseline: base, ms: performance.now() - start };
    process.stdout.write(`BLOCK ${JSON.stringify(block)}\n`);
  }
}

async function main(): Promise<void> {
  const [dir, key, ...ns] = process.argv.slice(2);
  installCounters();
  process.noDeprecation = true;
  const system = perStepSystems(dir).find((s) => systemKey(s) === key);
  if (!system) throw new Error(`no system "${key}"`);
  await system.open();
  try {
    // Warm-up: JIT, statement caches, pools. A Node process spends its first two thousand or
    // so steps compiling (its compiler threads share the machine's cores with the database);
    // a service runs for hours, so the blocks measure what follows.
    for (let steps = 0; steps < WARM_UP_STEPS; steps += WARM_UP_RUN) await system.run(WARM_UP_RUN);
    if (ns[0] === '--serve') return await serve((n) => system.run(n));
    const runs: ChildResult['runs'] = [];
    for (const n of ns.map(Number)) {
      const base = await baseline(n);
      const before = snapshot();
      const start = performance.now();
      const id = await system.run(n);
      const ms = performance.now() - start;
      runs.push({ n, baseline: base, ms, counts: since(before, system.channel), id });
    }
    const last = runs[runs.length - 1];
    const storedBytes = last ? await system.storedBytes?.(last.id) : undefined;
    const result: ChildResult = { runs, storedBytes };
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  } finally {
    await system.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
