import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import type { Circus } from '@jest/types';
import { TestEnvironment as NodeEnvironment } from 'jest-environment-node';

/**
 * The docblock pragma of a test file whose point is a warning printed to the console:
 * `@waymark-warnings expected`. A test that asserts on warnings can also capture them
 * instead (`RecordingLogger`), which prints nothing.
 */
export const EXPECTS_WARNINGS_PRAGMA = 'waymark-warnings';

/** How waymark's default logger (and `RecordingLogger`, for unexpected lines) starts a line. */
const WAYMARK_LINE = '[waymark]';

/**
 * Node's test environment, and a green file prints no waymark warning: each `console.warn`
 * or `console.error` line starting with `[waymark]` is counted, and a file that printed any
 * fails, naming them, unless its docblock says `@waymark-warnings expected`.
 */
export default class WarningCheckingEnvironment extends NodeEnvironment {
  private readonly printed: string[] = [];
  private readonly expectsWarnings: boolean;
  /** Child processes of this jest worker alive before the file ran (another file's, ending). */
  private childrenBefore = 0;

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    this.expectsWarnings = context.docblockPragmas[EXPECTS_WARNINGS_PRAGMA] !== undefined;
  }

  override async setup(): Promise<void> {
    this.childrenBefore = childProcesses();
    await super.setup();
    const console = this.global.console;
    for (const level of ['warn', 'error'] as const) {
      const write = console[level].bind(console);
      console[level] = (...args: unknown[]) => {
        if (typeof args[0] === 'string' && args[0].startsWith(WAYMARK_LINE)) {
          this.printed.push(args[0]);
        }
        write(...args);
      };
    }
  }

  async handleTestEvent(event: Circus.Event, state: Circus.State): Promise<void> {
    if (event.name !== 'run_finish') return;
    await this.checkChildrenEnded(state);
    if (this.expectsWarnings || this.printed.length === 0) return;
    const shown = this.printed.slice(0, 5).map((line) => `  ${line}`);
    const more = this.printed.length > 5 ? [`  … and ${this.printed.length - 5} more`] : [];
    state.unhandledErrors.push(
      new Error(
        [
          `this test file printed ${this.printed.length} waymark warning(s); a green test prints none.`,
          'Capture the ones a test expects (RecordingLogger), or mark the file `@waymark-warnings expected`:',
          ...shown,
          ...more,
        ].join('\n'),
      ),
    );
  }

  /**
   * A file whose child processes outlive it fails: such a child runs on into the next files
   * of this jest worker, and keeps the worker from exiting at the end of the run. A child
   * killed in `afterAll` has a moment to be reaped.
   */
  private async checkChildrenEnded(state: Circus.State): Promise<void> {
    for (let waited = 0; childProcesses() > this.childrenBefore; waited += CHILD_POLL_MS) {
      if (waited >= CHILD_GRACE_MS) {
        const left = childProcesses() - this.childrenBefore;
        state.unhandledErrors.push(
          new Error(
            `this test file left ${left} child process(es) running ${CHILD_GRACE_MS} ms after its ` +
              'last test: kill each child it starts, and wait for its exit, before it ends.',
          ),
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, CHILD_POLL_MS));
    }
  }
}

const CHILD_GRACE_MS = 5_000;
const CHILD_POLL_MS = 50;

/** Child processes of this process not yet reaped (Node's handle for one is a `ProcessWrap`). */
function childProcesses(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'ProcessWrap').length;
}
