import { WorkerProcess, type WorkerExit } from '../../crash/support/WorkerProcess';
import type { ClusterWorkerOptions } from '../fixtures/clusterWorker';

const SCRIPT = 'test/cluster/fixtures/clusterWorker.ts';

/** One event line of a cluster worker: its name, its fields, and when it was printed. */
export interface ClusterEvent {
  name: string;
  fields: string[];
  /** `Date.now()` in the worker when it printed the line. */
  at: number;
}

/**
 * A `clusterWorker.ts` child process (a `runtime.startWorker()` loop over a host list until
 * SIGTERM), with its event lines parsed.
 */
export class ClusterWorker {
  private constructor(
    readonly child: WorkerProcess,
    /** The URL it was given (its host order). */
    readonly database: string,
  ) {}

  static start(
    database: string,
    effectsUrl: string,
    ledgerPath: string,
    options: ClusterWorkerOptions,
    timeoutMs: number,
  ): ClusterWorker {
    const args = [database, effectsUrl, ledgerPath, JSON.stringify(options)];
    return new ClusterWorker(WorkerProcess.start(SCRIPT, args, { timeoutMs }), database);
  }

  get pid(): number {
    return this.child.pid;
  }

  /** Resolves with the server its first connection went to, once the runtime is open. */
  async ready(): Promise<string> {
    return parse(await this.child.waitForLine((line) => line.startsWith('ready '))).fields[1];
  }

  /** Resolves once the worker polls. */
  async polling(): Promise<void> {
    await this.child.waitForLine((line) => line.startsWith('go '));
  }

  /** Asks the worker where its connections go now (SIGUSR2), and waits for the answer. */
  async server(): Promise<string> {
    const before = this.events('server').length;
    process.kill(this.pid, 'SIGUSR2');
    let seen = 0;
    const line = await this.child.waitForLine((l) => l.startsWith('server ') && ++seen > before);
    return parse(line).fields[0];
  }

  /** Events printed so far named `name`, optionally only those of `runId`. */
  events(name: string, runId?: string): ClusterEvent[] {
    return this.child.lines
      .map(parse)
      .filter((e) => e.name === name && (runId === undefined || e.fields[0] === runId));
  }

  /** Runs this worker executes now: taken (started or resumed), not yet ended or released. */
  activeRuns(): string[] {
    const active = new Set<string>();
    for (const event of this.child.lines.map(parse)) {
      const runId = event.fields[0];
      if (event.name === 'run.started' || event.name === 'run.resumed') active.add(runId);
      if (['run.completed', 'run.waiting', 'run.failed'].includes(event.name)) active.delete(runId);
    }
    return [...active];
  }

  /** SIGTERM, then SIGKILL if still alive `killAfterMs` later; resolves with the exit. */
  async terminate(killAfterMs = 15_000): Promise<WorkerExit> {
    let timer: NodeJS.Timeout | undefined;
    if (this.child.running) {
      process.kill(this.pid, 'SIGTERM');
      timer = setTimeout(() => this.child.kill(), killAfterMs);
    }
    const exit = await this.child.exited;
    clearTimeout(timer);
    return exit;
  }
}

function parse(line: string): ClusterEvent {
  const [name, ...rest] = line.split(' ');
  const at = Number(rest[rest.length - 1]);
  return { name, fields: rest.slice(0, -1), at };
}
