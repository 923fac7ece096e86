/**
 * Per-step checkpoint overhead of waymark against the floor of one plain INSERT per step
 * and a plain in-process baseline, measured in the same run (the machine is shared and
 * noisy: only ratios from one interleaved run mean much).
 *
 *   npm run bench               # N = 1000, 5 rounds, SQLite file + MariaDB + PostgreSQL
 *   npm run bench -- --quick    # N = 200, 3 rounds
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { container, injectable } from 'tsyringe';
import { Step, Waymark, Workflow } from 'waymark';
import { floors, type Floor } from './floors';
import { measureMemory } from './memory';

const quick = process.argv.includes('--quick');
const N = quick ? 200 : 1000;
const ROUNDS = quick ? 3 : 5;

@injectable()
class Sequence {
  @Workflow({ name: 'bench.sequence', id: (runId: string) => runId })
  async run(_runId: string, steps: number): Promise<number> {
    let last = 0;
    for (let i = 0; i < steps; i++) last = (await this.step(i)).i;
    return last;
  }

  @Step()
  async step(i: number): Promise<{ i: number; text: string }> {
    return { i, text: 'x'.repeat(100) };
  }
}

async function baseline(steps: number): Promise<number> {
  const plain = async (i: number) => ({ i, text: 'x'.repeat(100) });
  const start = performance.now();
  for (let i = 0; i < steps; i++) await plain(i);
  return performance.now() - start;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (ms: number): string => `${(ms * 1000).toFixed(0)}`;

interface Row {
  backend: string;
  waymark: number[];
  floor: number[];
  base: number[];
}

async function measure(floor: Floor): Promise<Row> {
  const runtime = await Waymark.create({
    database: floor.url,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  const agent = container.resolve(Sequence);
  await floor.open();
  const row: Row = { backend: floor.name, waymark: [], floor: [], base: [] };
  try {
    await agent.run(`warmup-${Date.now()}`, 50);
    await floor.insertMany(50);
    for (let round = 0; round < ROUNDS; round++) {
      row.base.push(await baseline(N));
      let start = performance.now();
      await floor.insertMany(N);
      row.floor.push(performance.now() - start);
      start = performance.now();
      await agent.run(`bench-${Date.now()}-${round}`, N);
      row.waymark.push(performance.now() - start);
    }
  } finally {
    await floor.close();
    await runtime.close();
  }
  return row;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-'));
  const rows: Row[] = [];
  try {
    for (const floor of floors(dir)) {
      try {
        rows.push(await measure(floor));
      } catch (error) {
        console.error(`${floor.name}: skipped (${(error as Error).message})`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nPer-step cost, N = ${N} sequential steps, median of ${ROUNDS} rounds (µs/step)\n`);
  console.log(
    'backend            waymark   one-INSERT floor   plain call   waymark overhead / floor',
  );
  for (const row of rows) {
    const base = median(row.base) / N;
    const w = median(row.waymark) / N - base;
    const f = median(row.floor) / N;
    console.log(
      `${row.backend.padEnd(18)} ${us(w).padStart(7)}   ${us(f).padStart(16)}   ${us(base).padStart(10)}   ${(w / f).toFixed(2).padStart(24)}×`,
    );
  }
  const memory = await measureMemory(quick);
  console.log(
    `\nWorker resident memory (SQLite file): idle after ${memory.runs} completed runs ${memory.idleMb.toFixed(1)} MB; ` +
      `with ${memory.runs} runs waiting for a signal ${memory.loadedMb.toFixed(1)} MB ` +
      `(${(memory.loadedMb - memory.idleMb).toFixed(1)} MB more)`,
  );
}

void main();
