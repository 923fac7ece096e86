import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { RunCancelledError, Waymark, type Logger, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { Approvals, StepLog } from '../support/fixtures/Approvals';

/** What a runtime logged, as `level message: error message` lines. */
class LogLines {
  readonly lines: string[] = [];
  readonly logger: Logger = {
    debug: () => undefined,
    info: (message, fields) => this.add('info', message, fields),
    warn: (message, fields) => this.add('warn', message, fields),
    error: (message, fields) => this.add('error', message, fields),
  };

  at(level: 'info' | 'warn' | 'error'): string[] {
    return this.lines.filter((line) => line.startsWith(`${level} `));
  }

  private add(level: string, message: string, fields?: Record<string, unknown>): void {
    const error = fields?.error instanceof Error ? `: ${fields.error.message}` : '';
    this.lines.push(`${level} ${message}${error}`);
  }
}

const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

describe.each(BACKENDS)('a cancelled run in the log on %s', (backend) => {
  let db: TestDatabase;
  let scope: DependencyContainer;
  let steps: StepLog;
  let log: LogLines;
  let worker: WaymarkRuntime;
  let operator: WaymarkRuntime;
  let n = 0;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    scope = rootContainer.createChildContainer();
    steps = new StepLog();
    scope.registerInstance(StepLog, steps);
    log = new LogLines();
    Approvals.stepDelayMs = 100;
    const open = (workerId: string, logger?: Logger) =>
      Waymark.create({ database: db.url, container: scope, workerId, logger });
    worker = await open('the-worker', log.logger);
    // Another runtime on the database: another process, as far as the worker can tell.
    operator = await open('the-operator');
  });
  afterEach(async () => {
    Approvals.stepDelayMs = 0;
    await worker.close({ grace: 100 });
    await operator.close({ grace: 100 });
  });

  /** A queued 30-step job, executing in the worker's runtime once its second step ran. */
  const executingInWorker = async (): Promise<string> => {
    const handle = await operator.start(Approvals, 'longJob', [`${backend}-${++n}`, 30], {
      queue: true,
    });
    worker.startWorker({ pollInterval: '20ms' });
    for (let i = 0; i < 1000 && steps.count(handle.runId, 'work-1') === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(steps.count(handle.runId, 'work-1')).toBe(1);
    return handle.runId;
  };

  /** Waits until the worker has logged how the run ended in it. */
  const loggedEnd = async (runId: string): Promise<void> => {
    for (let i = 0; i < 1000 && !log.lines.some((l) => l.includes(`run "${runId}"`)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  it('cancelled from another process while a worker executes it: said to be cancelled, at info, with no warning', async () => {
    const runId = await executingInWorker();
    await operator.cancel(runId, 'no longer needed');
    await loggedEnd(runId);
    expect(log.at('warn')).toEqual([]);
    expect(log.at('error')).toEqual([]);
    expect(log.at('info')).toEqual([
      `info run "${runId}" was cancelled; this worker stopped it: run "${runId}" was cancelled: no longer needed`,
    ]);
    await expect(worker.handle(runId).result()).rejects.toBeInstanceOf(RunCancelledError);
  });

  it('cancelled in the process whose worker executes it: said to be cancelled, at info, with no warning', async () => {
    const runId = await executingInWorker();
    await worker.cancel(runId, 'changed my mind');
    await loggedEnd(runId);
    expect(log.at('warn')).toEqual([]);
    expect(log.at('error')).toEqual([]);
    expect(log.at('info')).toEqual([
      `info run "${runId}" was cancelled; this worker stopped it: run "${runId}" was cancelled: changed my mind`,
    ]);
  });
});
