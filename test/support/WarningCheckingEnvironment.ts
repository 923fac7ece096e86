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

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    this.expectsWarnings = context.docblockPragmas[EXPECTS_WARNINGS_PRAGMA] !== undefined;
  }

  override async setup(): Promise<void> {
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

  handleTestEvent(event: Circus.Event, state: Circus.State): void {
    if (event.name !== 'run_finish' || this.expectsWarnings || this.printed.length === 0) return;
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
}
