import type { RunHandle } from '../runtime/RunHandle';
import type { LimiterStats, QueueStats } from '../runtime/FlowControls';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import type { RunSummary, StepRecord } from '../model/RunRecords';
import type { StreamSummary } from '../model/StreamSummary';
import { isTerminalStatus } from '../model/RunStatus';
import { storedOutcomeOf } from '../errors/storedOutcomeNote';
import {
  MAX_ERROR_TEXT,
  MAX_VALUE_TEXT,
  parseCancelRequest,
  parseListQuery,
  parseSignalRequest,
  parseStepsQuery,
} from './consoleRequests';
import { toJsonValue } from './toJsonValue';
import { withApprovalPreview, type ListedRun } from './approvalPreview';
import { aiStepKind } from '../ai/stepKinds';
import { storedValue } from '../model/StoredValue';
import { modelCallView } from './modelCallView';
import { toolCallView } from './toolCallView';
import type { ModelCallView, ToolCallView } from './conversationView';

/** How long reading the stored outcome of an ended run may take before it is left out. */
const OUTCOME_WAIT_MS = 1000;

/** `GET /api/runs`: one page of runs, newest first. */
export interface RunListResponse {
  /** A run waiting for a tool call's approval (`approve:<toolCallId>`) carries `approval`. */
  runs: ListedRun[];
  nextCursor: string | null;
  /** The server's clock, so the page draws open bars up to the same instant. */
  now: Date;
}

/**
 * A step as the console shows it. A step `waymark/ai` recorded has a `kind` (from its name:
 * a model call `model:…`, a tool call `tool:…`) and a view read from its whole stored output
 * (`modelCall`, when its shape is known; `toolCall`), which the page shows as a conversation.
 */
export type ConsoleStep = StepRecord & {
  kind?: 'model-call' | 'tool-call';
  modelCall?: ModelCallView;
  toolCall?: ToolCallView;
};

/** How an ended run ended: its result, or the error it ended with (as JSON). */
export type RunOutcomeJson = { result: unknown } | { error: unknown };

/**
 * `GET /api/runs/:id?from=&limit=`: the run (with why it is parked, and its arguments), one
 * page of its step history (with each step's output), and its outcome once it has ended.
 */
export interface RunDetailResponse {
  /** With `args` and `parkedReason`; `args.json` cut at 1,000 characters. */
  run: RunSummary;
  /**
   * At most `limit` steps from seq `from`; error messages and `output.json` cut at 1,000
   * characters (`output.truncated`, `output.length` say how much there is).
   */
  steps: ConsoleStep[];
  /** `from` of the next page; null when this page reached the end of the history. */
  nextFrom: number | null;
  /** Null while the run has not ended. */
  outcome: RunOutcomeJson | null;
  now: Date;
}

/**
 * What the console's JSON API does, over the public runtime API only: list runs, show one,
 * send a signal, cancel. Request bodies are validated here; errors propagate for the
 * handler to map to HTTP statuses.
 *
 * @example
 * ```ts
 * const api = new ConsoleApi(runtime);
 * const { runs } = await api.list(new URLSearchParams('status=waiting'));
 * ```
 */
export class ConsoleApi {
  constructor(private readonly runtime: WaymarkRuntime) {}

  /** `GET /api/runs/:id/streams`: the streams the run wrote to (404 for an unknown run). */
  async streams(runId: string): Promise<StreamSummary[]> {
    await this.runtime.handle(runId).status();
    return this.runtime.streams(runId);
  }

  /** `GET /api/queues`: each queue's depth and executing runs, and each limiter. */
  async queues(): Promise<{ queues: QueueStats[]; limiters: LimiterStats[] }> {
    const [queues, limiters] = await Promise.all([
      this.runtime.queueStats(),
      this.runtime.limiterStats(),
    ]);
    return { queues, limiters };
  }

  /**
   * Runs matching the query's `status`, `workflow`, `waitingFor`, `limit` and `cursor`; a run
   * waiting for `approve:<toolCallId>` with the tool name and proposed arguments of that call.
   */
  async list(query: URLSearchParams): Promise<RunListResponse> {
    const page = await this.runtime.list(parseListQuery(query));
    const runs = await Promise.all(page.runs.map((run) => withApprovalPreview(this.runtime, run)));
    return { runs, nextCursor: page.nextCursor ?? null, now: new Date() };
  }

  /**
   * One run with a page of its history (`from`, `limit` in `query`); throws
   * `RunNotFoundError` for an unknown id. However long the history, the answer holds one
   * bounded page, read in bounded queries.
   */
  async show(runId: string, query: URLSearchParams): Promise<RunDetailResponse> {
    const page = parseStepsQuery(query);
    const handle = this.runtime.handle(runId);
    const run = await handle.describe({ valueChars: MAX_VALUE_TEXT });
    // Whole values (the page's rows hold them already): a model call's view reads all of it.
    const steps = await handle.history({ ...page, valueChars: Infinity });
    const outcome = isTerminalStatus(run.status) ? await outcomeOf(handle) : null;
    const last = steps[steps.length - 1];
    return {
      run,
      steps: steps.map((step) => shortened(withView(runId, step))),
      nextFrom: steps.length === page.limit && last ? last.seq + 1 : null,
      outcome,
      now: new Date(),
    };
  }

  /** Sends the signal in `body` (`{ name, payload? }`) to the run. */
  async signal(runId: string, body: unknown): Promise<{ runId: string; signal: string }> {
    const { name, payload } = parseSignalRequest(body);
    await this.runtime.signal(runId, name, payload);
    return { runId, signal: name };
  }

  /** Cancels the run, with the optional `reason` in `body`. */
  async cancel(runId: string, body: unknown): Promise<{ runId: string; cancelled: true }> {
    const { reason } = parseCancelRequest(body);
    await this.runtime.cancel(runId, reason);
    return { runId, cancelled: true };
  }
}

/**
 * The step with its output cut at {@link MAX_VALUE_TEXT} characters and its error message at
 * {@link MAX_ERROR_TEXT}.
 */
function shortened<S extends StepRecord>(step: S): S {
  const output = step.output && storedValue(step.output.json, MAX_VALUE_TEXT);
  const cutOutput = output ? { ...step, output } : step;
  const message = step.error?.message;
  if (message === undefined || message.length <= MAX_ERROR_TEXT) return cutOutput;
  const cut = `${message.slice(0, MAX_ERROR_TEXT)}… (${message.length - MAX_ERROR_TEXT} more characters)`;
  return { ...cutOutput, error: { ...step.error!, message: cut } };
}

/** A step `waymark/ai` recorded with its kind and view, read from its whole output. */
function withView(runId: string, step: StepRecord): ConsoleStep {
  const kind = aiStepKind(step.name);
  if (kind === 'tool-call') {
    const toolCall = toolCallView(runId, step.name, step.idempotencyKey, step.output?.json);
    return { ...step, kind, toolCall };
  }
  if (kind !== 'model-call') return step;
  const modelCall = step.output && modelCallView(step.output.json);
  return modelCall ? { ...step, kind, modelCall } : { ...step, kind };
}

/**
 * The stored result or error of an ended run. `result()` answers at once for an ended run;
 * the time limit only guards against a run put back to work (`retry`) in between.
 */
async function outcomeOf(handle: RunHandle): Promise<RunOutcomeJson | null> {
  let timer: NodeJS.Timeout | undefined;
  const settled = handle.result().then(
    (result): RunOutcomeJson => ({ result: toJsonValue(result) }),
    // The error as stored: the console shows how the run ended, not a caller's re-throw of it.
    (error: unknown): RunOutcomeJson => ({
      error: toJsonValue(storedOutcomeOf(error)?.error ?? error),
    }),
  );
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), OUTCOME_WAIT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
