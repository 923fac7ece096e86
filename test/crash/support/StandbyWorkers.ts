import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MixedJob } from '../fixtures/MixedEnv';
import { WorkerProcess } from './WorkerProcess';

const WORKER = 'test/crash/fixtures/mixedWorker.ts';
/** A child that runs this long has hung: the watchdog kills it and the harness reports it. */
const CHILD_TIMEOUT_MS = 60_000;

interface Standby {
  readonly child: WorkerProcess;
  readonly jobPath: string;
  readonly loaded: Promise<string>;
}

/**
 * Child processes started ahead of need. Loading Node, SWC and waymark takes a child about a
 * second, far longer than the run it is killed in, so the next children load while the
 * current one runs and wait (`loaded`) until they are told their job: only then do they open
 * the database. The previous child is always dead by then, so runs still see one process
 * at a time.
 */
export class StandbyWorkers {
  private readonly ahead: Standby[] = [];
  private spawned = 0;

  constructor(
    private readonly dir: string,
    private readonly depth: number,
  ) {}

  /** A loaded child, given `job` now: it opens the runtime and prints `ready`. */
  async start(job: MixedJob): Promise<WorkerProcess> {
    this.fill();
    const next = this.ahead.shift()!;
    this.fill();
    await next.loaded;
    writeFileSync(next.jobPath, JSON.stringify(job));
    process.kill(next.child.pid, 'SIGUSR2');
    return next.child;
  }

  /** Kills the children still waiting for a job. */
  async close(): Promise<void> {
    const idle = this.ahead.splice(0);
    for (const standby of idle) standby.child.kill();
    await Promise.all(idle.map((s) => s.child.exited.catch(() => undefined)));
  }

  private fill(): void {
    while (this.ahead.length < this.depth) {
      const jobPath = join(this.dir, `job-${this.spawned++}.json`);
      const child = WorkerProcess.start(WORKER, [jobPath], { timeoutMs: CHILD_TIMEOUT_MS });
      const loaded = child.waitForLine((line) => line === 'loaded');
      loaded.catch(() => undefined);
      this.ahead.push({ child, jobPath, loaded });
    }
  }
}
