import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

const REPO = resolve(__dirname, '../../..');

/** A console process's memory after a full collection, and its peak so far (bytes). */
export interface Memory {
  heapUsed: number;
  rss: number;
  maxRss: number;
  /** The peak since the last {@link ConsoleProcess.mark} (sampled). */
  peakRss: number;
}

/** `test/console/support/serveConsole.ts` in a child process, asked for its memory over stdin. */
export class ConsoleProcess {
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly lines: AsyncIterator<string>;

  constructor(database: string) {
    this.child = spawn(
      process.execPath,
      ['--expose-gc', '-r', '@swc-node/register', 'test/console/support/serveConsole.ts', database],
      { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  async next<T>(): Promise<T> {
    const line = await this.lines.next();
    if (line.done) throw new Error('the console process ended');
    return JSON.parse(line.value) as T;
  }

  /** The memory now, and the start of what `peakRss` covers. */
  mark(): Promise<Memory> {
    this.child.stdin.write('mark\n');
    return this.next<Memory>();
  }

  memory(): Promise<Memory> {
    this.child.stdin.write('memory\n');
    return this.next<Memory>();
  }

  stop(): Promise<void> {
    return new Promise((done) => {
      this.child.once('close', () => done());
      this.child.stdin.end();
    });
  }
}
