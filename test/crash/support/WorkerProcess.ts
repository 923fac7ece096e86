import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';

/** How a child process ended. */
export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface LineWaiter {
  match: (line: string) => boolean;
  resolve: (line: string) => void;
  reject: (error: Error) => void;
}

const REPO_ROOT = resolve(__dirname, '../../..');

/**
 * A TypeScript script running in a child Node process (through `@swc-node/register`, which
 * maps the `waymark` import to `src/`), with its stdout split into lines. A watchdog kills
 * a child that runs longer than `timeoutMs`, so a hang fails the test instead of leaking.
 */
export class WorkerProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<WorkerExit>;
  private stderrText = '';
  private ended: WorkerExit | undefined;
  private timedOut = false;
  private readonly waiters = new Set<LineWaiter>();
  private readonly child: ChildProcessByStdio<null, Readable, Readable>;

  private constructor(
    script: string,
    args: string[],
    timeoutMs: number,
    env: Readonly<Record<string, string>>,
  ) {
    this.child = spawn(process.execPath, ['-r', '@swc-node/register', script, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let partial = '';
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) this.addLine(line);
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrText += chunk;
    });
    const watchdog = setTimeout(() => {
      this.timedOut = true;
      this.child.kill('SIGKILL');
    }, timeoutMs);
    // 'close' comes after the exit and after stdout has been read to its end.
    this.exited = new Promise<WorkerExit>((done, fail) => {
      this.child.once('error', (error) => {
        clearTimeout(watchdog);
        fail(error);
      });
      this.child.once('close', (code, signal) => {
        clearTimeout(watchdog);
        if (partial) this.addLine(partial);
        this.ended = { code, signal };
        const error = this.failure(`exited (${this.describeExit()}) before printing that line`);
        for (const waiter of this.waiters) waiter.reject(error);
        this.waiters.clear();
        done(this.ended);
      });
    });
    this.exited.catch(() => undefined);
  }

  /** Starts `script` (a path relative to the repository root) with `args`, and `env` added. */
  static start(
    script: string,
    args: string[],
    options: { timeoutMs?: number; env?: Readonly<Record<string, string>> } = {},
  ) {
    return new WorkerProcess(script, args, options.timeoutMs ?? 20_000, options.env ?? {});
  }

  get pid(): number {
    const { pid } = this.child;
    if (pid === undefined) throw new Error('the worker process was not spawned');
    return pid;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** How the child ended; undefined while it runs. */
  get exit(): WorkerExit | undefined {
    return this.ended;
  }

  get running(): boolean {
    return this.ended === undefined;
  }

  /** The first line, printed already or later, that `match` accepts; rejects if the child ends first. */
  waitForLine(match: (line: string) => boolean): Promise<string> {
    const printed = this.lines.find(match);
    if (printed !== undefined) return Promise.resolve(printed);
    if (this.ended) return Promise.reject(this.failure(`exited (${this.describeExit()})`));
    return new Promise((resolve, reject) => this.waiters.add({ match, resolve, reject }));
  }

  /** Sends SIGKILL: the process dies at once, without running any of its own code. */
  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }

  /** Sends `signal` (SIGSTOP freezes the process as a long GC pause or a stopped VM would; SIGCONT wakes it). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** Waits for the child to end; anything but exit code 0 is an error carrying its stderr. */
  async succeeded(): Promise<void> {
    const exit = await this.exited;
    if (exit.code !== 0) throw this.failure(`failed (${this.describeExit()})`);
  }

  /** An error that shows what the child printed. */
  failure(what: string): Error {
    const why = this.timedOut ? ' (killed by the watchdog: it ran too long)' : '';
    return new Error(
      `worker ${this.child.pid ?? '?'} ${what}${why}\n` +
        `stdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderrText}`,
    );
  }

  private describeExit(): string {
    if (!this.ended) return 'running';
    return this.ended.signal ? `signal ${this.ended.signal}` : `code ${String(this.ended.code)}`;
  }

  private addLine(line: string): void {
    this.lines.push(line);
    for (const waiter of this.waiters) {
      if (!waiter.match(line)) continue;
      this.waiters.delete(waiter);
      waiter.resolve(line);
    }
  }
}
