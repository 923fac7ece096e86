/**
 * A worker's resident memory with no waiting runs, and with N runs waiting for a signal:
 * waiting runs live in the database, not in any process.
 *
 *   node -r @swc-node/register bench/memory.ts [--quick] [--db URL]
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { Waiter } from './fixtures/Waiter';

export async function measureMemory(
  quick: boolean,
  url?: string,
): Promise<{ runs: number; idleMb: number; loadedMb: number }> {
  const runs = quick ? 2_000 : 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'waymark-memory-'));
  const database = url ?? `sqlite:${join(dir, 'memory.db')}`;
  const runtime = await Waymark.create({ database });
  const worker = spawn(
    process.execPath,
    [
      '--expose-gc',
      '-r',
      '@swc-node/register',
      join(__dirname, 'fixtures', 'memoryWorker.ts'),
      database,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const seen: string[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: worker.stdout }).on('line', (line) => {
    seen.push(line);
    waiters.splice(0).forEach((wake) => wake());
  });
  const next = async (prefix: string): Promise<string> => {
    for (;;) {
      const index = seen.findIndex((line) => line.startsWith(prefix));
      if (index >= 0) return seen.splice(index, 1)[0];
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const rss = async (): Promise<number> => {
    worker.stdin.write('rss\n');
    const [, rssBytes, heapBytes] = (await next('rss ')).split(' ');
    console.error(
      `  worker: rss ${(Number(rssBytes) / 1_048_576).toFixed(1)} MB, heap used ${(Number(heapBytes) / 1_048_576).toFixed(1)} MB`,
    );
    return Number(rssBytes) / 1_048_576;
  };
  try {
    await next('ready');
    const stamp = Date.now().toString(36);
    // First bring the worker to its working size with as many runs that complete.
    await enqueue(runs, (i) => runtime.start(Waiter, 'quick', [`${stamp}-${i}`], { queue: true }));
    await settled(runtime, 'bench.quick');
    const idleMb = await rss();
    await enqueue(runs, (i) => runtime.start(Waiter, 'wait', [`${stamp}-${i}`], { queue: true }));
    await settled(runtime, 'bench.waiter');
    const loadedMb = await rss();
    return { runs, idleMb, loadedMb };
  } finally {
    worker.stdin.end();
    await new Promise((resolve) => worker.once('exit', resolve));
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function enqueue(count: number, start: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < count; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, count - i) }, (_, j) => start(i + j)));
  }
}

/** Until no run of `workflow` is pending or running. */
async function settled(runtime: WaymarkRuntime, workflow: string): Promise<void> {
  for (;;) {
    const busy = await runtime.list({ status: ['pending', 'running'], workflow, limit: 1 });
    if (busy.runs.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

if (require.main === module) {
  const quick = process.argv.includes('--quick');
  const dbIndex = process.argv.indexOf('--db');
  void measureMemory(quick, dbIndex > 0 ? process.argv[dbIndex + 1] : undefined).then(
    ({ runs, idleMb, loadedMb }) => {
      console.log(
        `worker RSS idle: ${idleMb.toFixed(1)} MB; with ${runs} waiting runs: ${loadedMb.toFixed(1)} MB (${(loadedMb - idleMb).toFixed(1)} MB more)`,
      );
    },
  );
}
