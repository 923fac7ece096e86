import { container as rootContainer } from 'tsyringe';
import { DataSource } from 'typeorm';
import { dataSourceOptionsFromUrl } from 'waymark';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { createTestDatabase, type Backend, type TestDatabase } from './databases';
import { ClockworkLog } from './fixtures/Clockwork';

/** What a suite of the time features reads: the runtime of the current test and its log. */
export interface ClockworkSuite {
  readonly runtime: TestRuntime;
  readonly log: ClockworkLog;
  /** The suite's database: its URL, or the DataSource of in-memory SQLite. */
  readonly database: string | DataSource;
  /** Replaces the runtime (after `runtime.restart()`); closed after the test as the first. */
  use(runtime: TestRuntime): void;
  /** A name unique in this suite: `<backend>-<what>-<n>`. */
  label(what: string): string;
  /** Polls `check` every 10 ms for up to 5 s; fails naming `what`. */
  until(check: () => Promise<boolean>, what: string): Promise<void>;
}

/**
 * Declares the hooks of a suite on `backend` with a fake-clock runtime per test over one
 * database (an in-memory SQLite one shared through a DataSource): a fresh container with a
 * {@link ClockworkLog}, closed after the test — `beforeClose` first, to clean up what the
 * test stored.
 */
export function useClockworkSuite(
  backend: Backend,
  beforeClose?: (runtime: TestRuntime) => Promise<void>,
): ClockworkSuite {
  let db: TestDatabase;
  let database: string | DataSource;
  let runtime: TestRuntime;
  let log: ClockworkLog;
  let n = 0;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
    database =
      backend === 'sqlite'
        ? await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize()
        : db.url;
  });
  afterAll(async () => {
    if (database instanceof DataSource) await database.destroy();
    await db.drop();
  });
  beforeEach(async () => {
    const scope = rootContainer.createChildContainer();
    log = new ClockworkLog();
    scope.registerInstance(ClockworkLog, log);
    runtime = await createTestRuntime({ database, container: scope, clock: 'fake' });
  });
  afterEach(async () => {
    await beforeClose?.(runtime);
    await runtime.close({ grace: 100 });
  });
  return {
    get runtime() {
      return runtime;
    },
    get log() {
      return log;
    },
    get database() {
      return database;
    },
    use(next) {
      runtime = next;
    },
    label: (what) => `${backend}-${what}-${++n}`,
    async until(check, what) {
      for (let i = 0; i < 500; i++) {
        if (await check()) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`never happened: ${what}`);
    },
  };
}
