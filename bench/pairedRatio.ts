/**
 * The targets' ratios, measured in pairs: waymark and a floor on the same database, each in a
 * process of its own that stays open, take turns block by block (which one goes first
 * alternates), so every waymark block is compared with a floor block measured within a
 * second or two of it. This machine's speed, a disk's fsync time above all, drifts over
 * minutes by more than the margin of the targets; a ratio of two medians taken minutes apart
 * carries that drift, the median of paired ratios does not. Per step (C = 1): the one-INSERT
 * floor, perStepChild.ts. Concurrent runs (C = 64): the one-commit and group-commit floors,
 * concurrencyChild.ts.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { BENCH_DIR } from './lib/install';
import type { Block } from './perStepChild';

/**
 * One system in a served child process (`--serve`): it answers each line written to it with
 * one `BLOCK <json>` line.
 */
class ServedChild {
  private readonly waiting: Array<{ resolve(line: string): void; reject(e: Error): void }> = [];
  private exited: Error | undefined;

  private constructor(
    readonly key: string,
    private readonly child: ChildProcessByStdio<Writable, Readable, null>,
  ) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('READY') || line.startsWith('BLOCK '))
        this.waiting.shift()?.resolve(line);
    });
    child.on('exit', (code) => {
      this.exited = new Error(`the child measuring "${key}" exited (${code})`);
      for (const w of this.waiting.splice(0)) w.reject(this.exited);
    });
  }

  static async start(script: string, dir: string, key: string): Promise<ServedChild> {
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', join(BENCH_DIR, script), dir, key, '--serve'],
      { cwd: join(BENCH_DIR, '..'), stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const served = new ServedChild(key, child);
    await served.next();
    return served;
  }

  /** Writes `request`; the child's answer, parsed. */
  async ask<T>(request: string): Promise<T> {
    const answer = this.next();
    this.child.stdin.write(`${request}\n`);
    return JSON.parse((await answer).slice('BLOCK '.length)) as T;
  }

  close(): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
    });
  }

  private next(): Promise<string> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }
}

/**
 * `blocks` blocks in which each of the systems `keys` (served by `script`) answers `request`
 * once, all in turn, the first of each block a different one: per block, the answers in the
 * order of `keys`.
 */
async function inTurns<T>(
  script: string,
  dir: string,
  keys: readonly string[],
  blocks: number,
  request: string,
): Promise<T[][]> {
  const children: ServedChild[] = [];
  try {
    for (const key of keys) children.push(await ServedChild.start(script, dir, key));
    const answers: T[][] = [];
    for (let b = 0; b < blocks; b++) {
      const block = new Array<T>(keys.length);
      for (let i = 0; i < keys.length; i++) {
        const k = (b + i) % keys.length;
        block[k] = await children[k].ask<T>(request);
      }
      answers.push(block);
    }
    return answers;
  } finally {
    await Promise.all(children.map((child) => child.close()));
  }
}

/** Per block: waymark's and the floor's overhead per step (µs), and their ratio. */
export interface PairedBlocks {
  readonly waymarkUs: number[];
  readonly floorUs: number[];
  readonly ratios: number[];
}

/**
 * `blocks` pairs of `n`-step runs of the systems `waymarkKey` and `floorKey` (keys of
 * perStepSystems). Overhead as in the per-step table: waymark's time less the same `n`
 * plain async calls, the floor's time as it is.
 */
export async function pairedBlocks(
  dir: string,
  waymarkKey: string,
  floorKey: string,
  blocks: number,
  n: number,
): Promise<PairedBlocks> {
  const pairs = await inTurns<Block>(
    'perStepChild.ts',
    dir,
    [waymarkKey, floorKey],
    blocks,
    `run ${n}`,
  );
  const result: PairedBlocks = { waymarkUs: [], floorUs: [], ratios: [] };
  for (const [w, f] of pairs) {
    const waymarkUs = ((w.ms - w.baseline) * 1000) / n;
    const floorUs = (f.ms * 1000) / n;
    result.waymarkUs.push(waymarkUs);
    result.floorUs.push(floorUs);
    result.ratios.push(waymarkUs / floorUs);
  }
  return result;
}

/** Per block: each system's steps per second at one C (in the order asked for). */
export type PairedRates = number[][];

/**
 * `blocks` blocks in which waymark and the floors `floorKeys` (keys of concurrencySystems)
 * each start C runs at once, `passes` times, in turn; per block, each one's median rate.
 */
export function pairedRates(
  dir: string,
  waymarkKey: string,
  floorKeys: readonly string[],
  blocks: number,
  c: number,
  passes: number,
): Promise<PairedRates> {
  return inTurns<number>(
    'concurrencyChild.ts',
    dir,
    [waymarkKey, ...floorKeys],
    blocks,
    `run ${c} ${passes}`,
  );
}
