/**
 * Worker scaling on MariaDB: runs/second for 1, 2 and 4 worker processes draining the same
 * queue of R runs of 10 steps each, and how many step bodies ran twice (must be 0).
 *
 *   node -r @swc-node/register bench/scaling.ts [--quick]
 */
import 'reflect-metadata';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Waymark } from 'waymark';
import { Scaled } from './fixtures/Scaled';
import { MARIADB_URL, recreateMariaDb } from './lib/databases';
import { BENCH_DIR } from './lib/install';
import { quiet } from './systems/waymark';
import type { StatementCounts } from './lib/counter';

export interface ScalingResult {
  workers: number;
  runs: number;
  /** Runs per second, one entry per round. */
  rate: number[];
  /** Step bodies that ran more than once, over all rounds. */
  duplicates: number;
  /** Step bodies run, over all rounds (should be runs × steps per run × rounds). */
  executed: number;
  /** Per round: wall time, and CPU time of the worker processes and of the database server. */
  cpu: Array<{ wallMs: number; workersMs: number; serverMs: number | undefined }>;
  /** Statements the workers issued, over all rounds (polls and claims included). */
  statements: StatementCounts;
}

/** CPU milliseconds the database server's process has used, when it runs on this machine. */
function serverCpuMs(): number | undefined {
  try {
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      let comm = '';
      try {
        comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
      if (comm !== 'mariadbd' && comm !== 'mysqld') continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      // utime and stime (fields 14 and 15 of stat; 12 and 13 after the command), in ticks.
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    }
  } catch {
    /* not Linux */
  }
  return undefined;
}

interface Child {
  process: ChildProcessWithoutNullStreams;
  lines: string[];
  waiters: Array<() => void>;
}

function spawnWorker(url: string, groupCommit: boolean): Child {
  const worker = join(BENCH_DIR, 'fixtures', 'scalingWorker.ts');
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', worker, url, groupCommit ? 'on' : 'off'],
    { cwd: join(BENCH_DIR, '..'), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const state: Child = { process: child, lines: [], waiters: [] };
  child.stderr.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    state.lines.push(line);
    state.waiters.splice(0).forEach((wake) => wake());
  });
  child.once('exit', () => state.waiters.splice(0).forEach((wake) => wake()));
  return state;
}

async function nextLine(child: Child): Promise<string> {
  for (;;) {
    const line = child.lines.shift();
    if (line !== undefined) return line;
    if (child.process.exitCode !== null) throw new Error('a scaling worker exited early');
    await new Promise<void>((resolve) => child.waiters.push(resolve));
  }
}

export async function measureScaling(options: {
  workerCounts: number[];
  runs: number;
  rounds: number;
  url?: string;
  /** Steps per run: 10 unless said. */
  stepsPerRun?: number;
  /** The workers' `groupCommit` option: on unless said. */
  groupCommit?: boolean;
}): Promise<ScalingResult[]> {
  const url = options.url ?? MARIADB_URL;
  const steps = options.stepsPerRun ?? 10;
  const groupCommit = options.groupCommit ?? true;
  if (!options.url) await recreateMariaDb();
  const runtime = await Waymark.create({ database: url, logger: quiet });
  const results = options.workerCounts.map((workers): ScalingResult => ({
    workers,
    runs: options.runs,
    rate: [],
    duplicates: 0,
    executed: 0,
    cpu: [],
    statements: { read: 0, write: 0, tx: 0, other: 0 },
  }));
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const result of results) {
        const children = Array.from({ length: result.workers }, () =>
          spawnWorker(url, groupCommit),
        );
        try {
          for (const child of children) {
            const ready = await nextLine(child);
            if (ready !== 'ready') throw new Error(`scaling worker said ${ready}`);
          }
          const stamp = `${Date.now().toString(36)}-${result.workers}-${round}`;
          for (let i = 0; i < options.runs; i += 100) {
            await Promise.all(
              Array.from({ length: Math.min(100, options.runs - i) }, (_, j) =>
                runtime.start(Scaled, 'run', [`${stamp}-${i + j}`, steps], { queue: true }),
              ),
            );
          }
          const server = serverCpuMs();
          const start = performance.now();
          for (const child of children) child.process.stdin.write('go\n');
          for (;;) {
            const busy = await runtime.list({
              status: ['pending', 'running'],
              workflow: 'bench.scaled',
              limit: 1,
            });
            if (busy.runs.length === 0) break;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          const wallMs = performance.now() - start;
          const serverAfter = serverCpuMs();
          result.rate.push(options.runs / (wallMs / 1000));
          let workersMs = 0;
          const seen = new Set<string>();
          for (const child of children) {
            child.process.stdin.write('stop\n');
            const report = JSON.parse(await nextLine(child)) as {
              executions: string[];
              cpuMs: number;
              statements: StatementCounts;
            };
            for (const k of ['read', 'write', 'tx', 'other'] as const)
              result.statements[k] += report.statements[k];
            const ran = report.executions;
            workersMs += report.cpuMs;
            for (const key of ran) {
              if (seen.has(key)) result.duplicates++;
              seen.add(key);
            }
            result.executed += ran.length;
          }
          result.cpu.push({
            wallMs,
            workersMs,
            serverMs:
              server !== undefined && serverAfter !== undefined ? serverAfter - server : undefined,
          });
          if (seen.size !== options.runs * steps)
            throw new Error(`expected ${options.runs * steps} distinct steps, saw ${seen.size}`);
        } finally {
          for (const child of children)
            if (child.process.exitCode === null) child.process.stdin.end();
          await Promise.all(
            children.map((c) =>
              c.process.exitCode !== null
                ? Promise.resolve()
                : new Promise((resolve) => c.process.once('exit', resolve)),
            ),
          );
        }
      }
    }
  } finally {
    await runtime.close();
  }
  return results;
}

if (require.main === module) {
  const quick = process.argv.includes('--quick');
  void measureScaling({
    workerCounts: quick ? [1, 2] : [1, 2, 4],
    runs: quick ? 300 : 1000,
    rounds: quick ? 1 : 3,
  }).then((results) => {
    for (const r of results)
      console.log(
        `${r.workers} worker(s): ${r.rate.map((x) => x.toFixed(0)).join(', ')} runs/s; ` +
          `${r.executed} step bodies, ${r.duplicates} duplicated`,
      );
  });
}
