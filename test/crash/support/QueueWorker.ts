import type { QueueWorkerOptions } from '../fixtures/queueWorker';
import { WorkerProcess, type WorkerExit } from './WorkerProcess';

const SCRIPT = 'test/crash/fixtures/queueWorker.ts';

/** One event line of a queue worker: its name, its fields, and when it was printed. */
export interface WorkerEvent {
  name: string;
  fields: string[];
  /** `Date.now()` in the worker when it printed the line. */
  at: number;
}

/**
 * A `queueWorker.ts` child process (a `runtime.startWorker()` loop until SIGTERM), with its
 * event lines parsed.
 */
export class QueueWorker {
  /** `Date.now()` here when the process ended (its output read to the end). */
  readonly endedAt: Promise<number>;

  private constructor(readonly child: WorkerProcess) {
    this.endedAt = child.exited.then(
      () => Date.now(),
      () => Date.now(),
    );
  }

  /** Starts a worker on `database` that appends its step bodies to `ledgerPath`. */
  static start(
    database: string,
    ledgerPath: string,
    options: QueueWorkerOptions,
    timeoutMs = 60_000,
  ): QueueWorker {
    const args = [database, ledgerPath, JSON.stringify(options)];
    return new QueueWorker(WorkerProcess.start(SCRIPT, args, { timeoutMs }));
  }

  get pid(): number {
    return this.child.pid;
  }

  /** Resolves once the runtime is open (and, without a barrier, polling). */
  async ready(): Promise<void> {
    await this.child.waitForLine((line) => line.startsWith('ready '));
  }

  /** Resolves once the worker polls (after its barrier, if it has one). */
  async polling(): Promise<void> {
    await this.child.waitForLine((line) => line.startsWith('go '));
  }

  /** The first event `name` of `runId` (printed already or later). */
  async next(name: string, runId?: string): Promise<WorkerEvent> {
    const prefix = runId === undefined ? `${name} ` : `${name} ${runId} `;
    return parse(await this.child.waitForLine((line) => line.startsWith(prefix)));
  }

  /**
   * The first `run.started` or `run.resumed` event of `runId`: this worker took the run
   * (a queued run it claimed, or one it took over).
   */
  async took(runId: string): Promise<WorkerEvent> {
    const started = ['run.started', 'run.resumed'].map((name) => `${name} ${runId} `);
    return parse(await this.child.waitForLine((line) => started.some((p) => line.startsWith(p))));
  }

  /** Events printed so far named `name`, optionally only those of `runId`. */
  events(name: string, runId?: string): WorkerEvent[] {
    return this.child.lines
      .map(parse)
      .filter((e) => e.name === name && (runId === undefined || e.fields[0] === runId));
  }

  /**
   * Sends SIGTERM (a deploy) and resolves with how the process ended and when. A process
   * still alive `killAfterMs` later is killed (the exit then shows SIGKILL), so a worker that
   * does not stop fails the test instead of hanging it.
   */
  async terminate(killAfterMs = 15_000): Promise<WorkerExit & { at: number }> {
    let timer: NodeJS.Timeout | undefined;
    if (this.child.running) {
      process.kill(this.pid, 'SIGTERM');
      timer = setTimeout(() => this.child.kill(), killAfterMs);
    }
    const exit = await this.child.exited;
    clearTimeout(timer);
    return { ...exit, at: await this.endedAt };
  }
}

function parse(line: string): WorkerEvent {
  const [name, ...rest] = line.split(' ');
  const at = Number(rest[rest.length - 1]);
  return { name, fields: rest.slice(0, -1), at };
}
