/**
 * The per-step target's ratio, measured in pairs: waymark and the one-INSERT floor on the
 * same database, each in a process of its own that stays open, take turns block by block
 * (which one goes first alternates), so every waymark block is compared with a floor block
 * measured within a second of it. This machine's speed, a disk's fsync time above all,
 * drifts over minutes by more than the margin of the target; a ratio of two medians taken
 * minutes apart carries that drift, the median of paired ratios does not.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { BENCH_DIR } from './lib/install';
import type { Block } from './perStepChild';

/** One system in a served child process (perStepChild.ts `--serve`). */
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

  static async start(dir: string, key: string): Promise<ServedChild> {
    const child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', join(BENCH_DIR, 'perStepChild.ts'), dir, key, '--serve'],
      { cwd: join(BENCH_DIR, '..'), stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const served = new ServedChild(key, child);
    await served.next();
    return served;
  }

  async run(n: number): Promise<Block> {
    const answer = this.next();
    this.child.stdin.write(`run ${n}\n`);
    return JSON.parse((await answer).slice('BLOCK '.length)) as Block;
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
  const waymark = await ServedChild.start(dir, waymarkKey);
  const floor = await ServedChild.start(dir, floorKey).catch(async (error: unknown) => {
    await waymark.close();
    throw error;
  });
  const result: PairedBlocks = { waymarkUs: [], floorUs: [], ratios: [] };
  try {
    for (let b = 0; b < blocks; b++) {
      const first = b % 2 === 0 ? waymark : floor;
      const second = first === waymark ? floor : waymark;
      const firstBlock = await first.run(n);
      const secondBlock = await second.run(n);
      const [w, f] = first === waymark ? [firstBlock, secondBlock] : [secondBlock, firstBlock];
      const waymarkUs = ((w.ms - w.baseline) * 1000) / n;
      const floorUs = (f.ms * 1000) / n;
      result.waymarkUs.push(waymarkUs);
      result.floorUs.push(floorUs);
      result.ratios.push(waymarkUs / floorUs);
    }
  } finally {
    await Promise.all([waymark.close(), floor.close()]);
  }
  return result;
}
