/**
 * Diagnostic: one concurrency system at one C, many times over, to tell warm-up from the steady
 * rate. Usage: node -r @swc-node/register bench/concurrencySteady.ts <dir> <key> <C> <rounds>
 */
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { concurrencySystems } from './concurrencySystems';
import { STEPS } from './concurrencyChild';
import { systemKey } from './perStepSystems';

/** Commits and their row counts, from GroupCommit's private `take` (diagnostic only). */
const sizes: number[] = [];
let alone = 0;
function countCommits(): void {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { GroupCommit } = require('../src/store/GroupCommit');
  const proto = GroupCommit.prototype;
  const take = proto.take;
  proto.take = function (this: unknown) {
    const batch = take.call(this);
    if (batch.length > 0) sizes.push(batch.length);
    return batch;
  };
  const insert = proto.insertStep;
  proto.insertStep = function (this: { inFlight: boolean }, ...args: unknown[]) {
    if (!this.inFlight) alone++;
    return insert.apply(this, args);
  };
  const { StepBatches } = require('../src/store/StepBatches');
  const write = StepBatches.prototype.write;
  StepBatches.prototype.write = async function (this: unknown, ...args: unknown[]) {
    const t = performance.now();
    try {
      return await write.apply(this, args);
    } finally {
      writeMs += performance.now() - t;
    }
  };
  /* eslint-enable */
}
let writeMs = 0;

async function main(): Promise<void> {
  countCommits();
  const [dir, key, c, rounds] = process.argv.slice(2);
  process.noDeprecation = true;
  const systems = concurrencySystems(dir);
  const system = systems.find((s) => systemKey(s) === key);
  if (!system) throw new Error(`no system "${key}": ${systems.map(systemKey).join('; ')}`);
  await system.open();
  try {
    const rates: number[] = [];
    for (let r = 0; r < Number(rounds); r++) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      await Promise.all(Array.from({ length: Number(c) }, () => system.run(STEPS)));
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpu);
      rates.push(Math.round((Number(c) * STEPS) / (ms / 1000)));
      const rows = sizes.reduce((a, b) => a + b, 0);
      console.log(
        `  commits: ${sizes.length + alone} (${alone} alone), rows batched ${rows}, mean batch ${(rows / Math.max(1, sizes.length)).toFixed(1)}`,
      );
      console.log(`  in batch writes: ${writeMs.toFixed(1)} ms of ${ms.toFixed(1)} ms`);
      writeMs = 0;
      sizes.length = 0;
      alone = 0;
      console.log(
        `round ${r}: ${rates.at(-1)} steps/s, ${((used.user + used.system) / (Number(c) * STEPS)).toFixed(1)} µs CPU/step`,
      );
    }
  } finally {
    await system.close();
  }
}
void main();
