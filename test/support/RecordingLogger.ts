import type { Logger } from 'waymark';

/** One line a runtime logged. */
export interface LogRecord {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly fields?: Record<string, unknown>;
}

/**
 * A runtime that finds runs a stopped process left running, and does not resume them itself,
 * says so (once per process; the testing kit only with `reportAbandonedRuns: true`).
 */
export const ABANDONED_RUNS =
  /^\d+ run\(s\) were left running by processes on this host that stopped \(/;

/** A caller reaching for a run whose holder is alive elsewhere waits for its lease. */
export const HELD_RUN = /^run ".*" is held by worker .* if its lease lapses$/;

/** What one abandoned-runs warning said: how many runs, and the ids it names (at most 3). */
export interface AbandonedReport {
  readonly count: number;
  readonly ids: string[];
}

/**
 * The logger of a runtime a test crashes, kills or races on purpose. Warnings and errors that
 * match one of `expected` are recorded, for the test to assert, and printed nowhere; any other
 * goes to the console as waymark's default logger writes it, so an unexpected warning stays
 * as visible as it would be without this logger. Info and debug lines are only recorded.
 */
export class RecordingLogger implements Logger {
  readonly records: LogRecord[] = [];

  constructor(private readonly expected: readonly RegExp[]) {}

  debug(message: string, fields?: Record<string, unknown>): void {
    this.records.push({ level: 'debug', message, fields });
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.records.push({ level: 'info', message, fields });
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.records.push({ level: 'warn', message, fields });
    if (!this.isExpected(message)) console.warn(`[waymark] ${message}`, fields ?? '');
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.records.push({ level: 'error', message, fields });
    if (!this.isExpected(message)) console.error(`[waymark] ${message}`, fields ?? '');
  }

  /** The messages of the warnings logged so far. */
  warnings(): string[] {
    return this.records.filter((r) => r.level === 'warn').map((r) => r.message);
  }

  /** Warnings and errors that matched none of the expected patterns (and were printed). */
  unexpected(): LogRecord[] {
    return this.records.filter(
      (r) => (r.level === 'warn' || r.level === 'error') && !this.isExpected(r.message),
    );
  }

  /** Each {@link ABANDONED_RUNS} warning so far, in order. */
  abandoned(): AbandonedReport[] {
    return this.warnings()
      .filter((m) => ABANDONED_RUNS.test(m))
      .map((m) => {
        const [, count, list] = /^(\d+) run\(s\) .*? \((.*?)(?: and \d+ more)?\);/.exec(m)!;
        return { count: Number(count), ids: [...list.matchAll(/"([^"]*)"/g)].map((g) => g[1]) };
      });
  }

  /** The run ids of the {@link HELD_RUN} warnings so far, in order. */
  held(): string[] {
    return this.warnings()
      .filter((m) => HELD_RUN.test(m))
      .map((m) => /^run "(.*)" is held by worker /.exec(m)![1]);
  }

  /** Forgets what was logged so far: for a logger shared by the tests of a suite. */
  clear(): void {
    this.records.length = 0;
  }

  private isExpected(message: string): boolean {
    return this.expected.some((pattern) => pattern.test(message));
  }
}
