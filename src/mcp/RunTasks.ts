import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { ConsoleApi } from '../console/ConsoleApi';
import { MAX_VALUE_TEXT } from '../console/consoleRequests';
import { isTerminalStatus } from '../model/RunStatus';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { jsonResult } from './jsonResult';
import { TASK_POLL_INTERVAL_MS, taskOfRun } from './taskOfRun';

/** Tasks a `tasks/list` page holds at most. */
export const TASK_PAGE_SIZE = 50;

/**
 * Runs read as MCP tasks (task id = run id): one task, a page of them, and the result of one
 * that has ended, each read in bounded queries (arguments and results cut at 1,000
 * characters, as the console cuts them).
 */
export class RunTasks {
  private readonly api: ConsoleApi;

  constructor(private readonly runtime: WaymarkRuntime) {
    this.api = new ConsoleApi(runtime);
  }

  /** The task of run `runId`; `RunNotFoundError` for an unknown id. */
  async task(runId: string): Promise<Task> {
    return taskOfRun(await this.runtime.handle(runId).describe({ valueChars: MAX_VALUE_TEXT }));
  }

  /** One page of tasks, newest run first; `cursor` from the previous page's `nextCursor`. */
  async tasks(cursor: string | undefined): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const page = await this.runtime.list({ limit: TASK_PAGE_SIZE, cursor });
    const tasks = page.runs.map(taskOfRun);
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  }

  /**
   * What the run ended with, as a tool's answer: its result (`structuredContent.result`, or
   * `resultPreview` — the start of the stored text — when it is over 1,000 characters), or
   * its error with `isError`. Waits, polling, until the run ends or `signal` aborts.
   */
  async result(runId: string, signal: AbortSignal): Promise<CallToolResult> {
    await this.untilEnded(runId, signal);
    const { run, outcome } = await this.api.show(runId, new URLSearchParams({ limit: '1' }));
    const ended = { runId, status: run.status };
    if (outcome === null) return jsonResult(ended, run.status !== 'completed');
    return jsonResult({ ...ended, ...outcome }, 'error' in outcome);
  }

  private async untilEnded(runId: string, signal: AbortSignal): Promise<void> {
    const handle = this.runtime.handle(runId);
    while (!isTerminalStatus(await handle.status())) {
      signal.throwIfAborted();
      await pause(TASK_POLL_INTERVAL_MS, signal);
    }
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
