/**
 * Queues: 10,000 runs queued, then drained by 4 worker processes (concurrency 16 each), in
 * the default queue (`queue: true`) and in a named queue (`runtime.queue('bench',
 * { concurrency: 64 })`, whose every claim takes the queue's row lock and counts what runs).
 * Reports the drain time of each (the queue's cost per run is the difference), and the time
 * from `start()` to claim of a run given a high priority while the backlog is queued.
 *
 *   node -r @swc-node/register bench/queues.ts [--runs 10000] [--backends postgres,mariadb]
 */
import 'reflect-metadata';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { declareBenchQueue, QueueBench } from './fixtures/QueueBench';
import { MARIADB, recreateMariaDb, recreatePostgres } from './lib/databases';
import { BENCH_DIR } from './lib/install';
import { median } from './lib/stats';
import { quiet } from './systems/waymark';
import { runChild } from '../test/support/runChild';

const WORKERS = 4;
const PROBES = 10;
const DATABASE = 'waymark_bench_queues';

type Mode = 'default' | 'named';

interface Drain {
  enqueueMs: number;
  drainMs: number;
  /** start → seen claimed (polled every 2 ms) of each high-priority probe (named queue only). */
  probeMs: number[];
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
}

async function freshUrl(backend: string): Promise<string> {
  if (backend === 'postgres') {
    await recreatePostgres(DATABASE);
    return `postgres://postgres@127.0.0.1:5432/${DATABASE}`;
  }
  await recreateMariaDb(DATABASE);
  return `mysql://${MARIADB.user}@${MARIADB.host}:${MARIADB.port}/${DATABASE}`;
}

function startWorker(url: string): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', join(BENCH_DIR, 'fixtures', 'queueWorker.ts'), url],
    { cwd: join(BENCH_DIR, '..') },
  );
  child.stderr.pipe(process.stderr);
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${String(code)}`)));
  });
}

async function count(runtime: WaymarkRuntime, status: string): Promise<number> {
  const rows = await runtime.dataSource.query<Array<{ n: unknown }>>(
    `SELECT COUNT(*) AS n FROM waymark_runs WHERE status = '${status}'`,
  );
  return Number(rows[0].n);
}

async function drain(backend: string, mode: Mode, runs: number): Promise<Drain> {
  const url = await freshUrl(backend);
  const producer = await Waymark.create({ database: url, logger: quiet });
  declareBenchQueue(producer);
  const queue = mode === 'named' ? 'bench' : true;
  const enqueueStart = performance.now();
  for (let n = 0; n < runs; n += 100) {
    const batch = Array.from({ length: Math.min(100, runs - n) }, (_, i) =>
      producer.start(QueueBench, 'run', [n + i], { queue }),
    );
    await Promise.all(batch);
  }
  const enqueueMs = performance.now() - enqueueStart;
  const workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(url)));
  const drainStart = performance.now();
  for (const worker of workers) worker.stdin.write('go\n');
  const probeMs: number[] = [];
  if (mode === 'named') {
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let p = 0; p < PROBES; p++) {
      const started = Date.now();
      const handle = await producer.start(QueueBench, 'run', [-p], { queue, priority: 100 });
      for (;;) {
        const rows = await producer.dataSource.query<Array<{ started_at: unknown }>>(
          `SELECT started_at FROM waymark_runs WHERE id = '${handle.runId}'`,
        );
        if (rows[0]?.started_at != null) {
          probeMs.push(Date.now() - started); // seen claimed here: an upper bound
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }
  }
  const total = runs + probeMs.length;
  while ((await count(producer, 'completed')) < total) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const drainMs = performance.now() - drainStart;
  for (const worker of workers) worker.stdin.write('stop\n');
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once('exit', resolve))));
  await producer.close();
  return { enqueueMs, drainMs, probeMs };
}

async function main(): Promise<void> {
  const runs = Number(option('runs', '10000'));
  const backends = option('backends', 'postgres,mariadb').split(',');
  console.log(
    `### Queues: ${runs} queued runs of one step, ${WORKERS} worker processes (concurrency 16 each)\n`,
  );
  console.log(
    '| database | queue | enqueue | drain | runs/s | per run | start → claim, priority run (median, max) |',
  );
  console.log('|---|---|---:|---:|---:|---:|---|');
  for (const backend of backends) {
    const results: Partial<Record<Mode, Drain>> = {};
    for (const mode of ['default', 'named'] as const) {
      const r = (results[mode] = await drain(backend, mode, runs));
      const probes =
        r.probeMs.length > 0
          ? `${median(r.probeMs).toFixed(0)} ms, ${Math.max(...r.probeMs)} ms`
          : '—';
      console.log(
        `| ${backend} | ${mode === 'named' ? "named ('bench', concurrency 64)" : 'default'} | ` +
          `${(r.enqueueMs / 1000).toFixed(1)} s | ${(r.drainMs / 1000).toFixed(1)} s | ` +
          `${((runs * 1000) / r.drainMs).toFixed(0)} | ${(r.drainMs / runs).toFixed(2)} ms | ${probes} |`,
      );
    }
    const added = (results.named!.drainMs - results.default!.drainMs) / runs;
    console.log(
      `| ${backend} | named − default | | ${(results.named!.drainMs / results.default!.drainMs).toFixed(2)}× | | ` +
        `${added >= 0 ? '+' : ''}${added.toFixed(2)} ms | |`,
    );
  }
}

runChild(main, { exit: 'now' });
