import type { RunHandle } from '../runtime/RunHandle';
import type { LimiterStats, QueueStats } from '../runtime/FlowControls';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import type { RunSummary, StepRecord, WholeValueOf } from '../model/RunRecords';
import type { StoredValue } from '../model/StoredValue';
import type { StreamSummary } from '../model/StreamSummary';
import { isTerminalStatus } from '../model/RunStatus';
import { storedOutcomeOf } from '../errors/storedOutcomeNote';
import {
  MAX_ERROR_TEXT,
  MAX_VALUE_TEXT,
  parseCancelRequest,
  parseEmptyRequest,
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

/**
 * Characters of each step's output a run page reads: a model call's conversation is drawn
 * from it; the answer then holds the first {@link MAX_VALUE_TEXT} of each.
 */
const VIEW_SOURCE_CHARS = 65_536;

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
 * a model call `model:…`, a tool call `tool:…`) and a view read from its stored output (up to 65,536 characters)
 * (`modelCall`, when its shape is known; `toolCall`), which the page shows as a conversation.
 */
export type ConsoleStep = StepRecord & {
  kind?: 'model-call' | 'tool-call';
  modelCall?: ModelCallView;
  toolCall?: ToolCallView;
};

/**
 * How an ended run ended: its result, or the error it ended with (as JSON). A result longer
 * than 1,000 characters is `resultPreview`, the start of its stored text
 * (`GET /api/runs/:id/outcome` answers it whole); a longer error has its message cut at 1,000
 * characters, its name and code at 200.
 */
export type RunOutcomeJson =
  { result: unknown } | { resultPreview: StoredValue } | { error: unknown };

/**
 * `GET /api/runs/:id?from=&limit=`: the run (with why it is parked, and its arguments), one
 * page of its step history (with each step's output), and its outcome once it has ended.
 */
export interface RunDetailResponse {
  /**
   * With `args` and `parkedReason`; `args.json` cut at 1,000 characters
   * (`GET /api/runs/:id/args` answers them whole).
   */
  run: RunSummary;
  /**
   * At most `limit` steps from seq `from`; error messages and `output.json` cut at 1,000
   * characters, error names and codes at 200 (`output.truncated`, `output.length` say how
   * much there is; `GET /api/runs/:id/steps/:seq/output` answers an output whole).
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
   * `RunNotFoundError` for an unknown id. However long the history and however large its
   * values, the answer holds one bounded page, read in bounded queries that read only the
   * start of each value.
   */
  async show(runId: string, query: URLSearchParams): Promise<RunDetailResponse> {
    const page = parseStepsQuery(query);
    const handle = this.runtime.handle(runId);
    const run = await handle.describe({ valueChars: MAX_VALUE_TEXT });
    // A model call's view reads its output's start, cut in the database as every value is.
    const steps = await handle.history({
      ...page,
      valueChars: VIEW_SOURCE_CHARS,
      errorChars: MAX_ERROR_TEXT,
    });
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

  /**
   * `GET /api/runs/:id/args`, `/outcome`, `/steps/:seq/output`: one stored value whole, as
   * the codec's JSON text; null when there is none (404 for an unknown run).
   */
  wholeValue(runId: string, of: WholeValueOf): Promise<string | null> {
    return this.runtime.handle(runId).wholeValue(of);
  }

  /**
   * Sends the signal in `body` (`{ name, payload?, idempotencyKey? }`) to the run, as decided
   * by the token named `decidedBy`: an object payload (or none) carries `decidedBy`, so the
   * wait that takes it records in the run's history who decided, and when. `duplicate`: the
   * key had been sent already, and nothing was stored.
   */
  async signal(
    runId: string,
    body: unknown,
    decidedBy: string,
  ): Promise<{ runId: string; signal: string; duplicate: boolean }> {
    const { name, payload, idempotencyKey } = parseSignalRequest(body);
    const options = idempotencyKey === undefined ? undefined : { idempotencyKey };
    const { duplicate } = await this.runtime.signal(
      runId,
      name,
      withDecidedBy(payload, decidedBy),
      options,
    );
    return { runId, signal: name, duplicate };
  }

  /**
   * Puts a `failed` or `needs_attention` run back in the queue (`retry(runId, { queue: true })`:
   * a worker executes it, never the console); `body` must be empty.
   */
  async retry(runId: string, body: unknown): Promise<{ runId: string; retried: true }> {
    parseEmptyRequest(body);
    await this.runtime.retry(runId, { queue: true });
    return { runId, retried: true };
  }

  /** Cancels the run, with the optional `reason` in `body` and who cancelled it. */
  async cancel(
    runId: string,
    body: unknown,
    decidedBy: string,
  ): Promise<{ runId: string; cancelled: true }> {
    const { reason } = parseCancelRequest(body);
    const by = `by ${decidedBy} via the console`;
    await this.runtime.cancel(runId, reason === undefined ? by : `${reason} (${by})`);
    return { runId, cancelled: true };
  }
}

/**
 * `payload` with `decidedBy` set (over any the caller sent: a token cannot claim another's
 * name); a payload that is not a plain object (a string, a number, an array) is sent as is.
 */
function withDecidedBy(payload: unknown, decidedBy: string): unknown {
  if (payload === undefined) return { decidedBy };
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return payload;
  return { ...payload, decidedBy };
}

/**
 * The step with its output cut at {@link MAX_VALUE_TEXT} characters, keeping the stored
 * length (set on the row: copies of every row of a page raised the console's peak memory).
 */
function shortened(step: ConsoleStep): ConsoleStep {
  const output = step.output;
  if (!output || output.json.length <= MAX_VALUE_TEXT) return step;
  const { json } = storedValue(output.json, MAX_VALUE_TEXT);
  return Object.assign(step, { output: { json, truncated: true, length: output.length } });
}

/**
 * A step `waymark/ai` recorded with its kind and view, read from its output when the
 * database read it whole (up to {@link VIEW_SOURCE_CHARS}); a longer one shows raw.
 */
function withView(runId: string, step: StepRecord): ConsoleStep {
  const kind = aiStepKind(step.name);
  if (kind === 'tool-call') {
    const toolCall = toolCallView(runId, step.name, step.idempotencyKey, step.output?.json);
    return { ...step, kind, toolCall };
  }
  if (kind !== 'model-call') return step;
  const modelCall =
    step.output && !step.output.truncated ? modelCallView(step.output.json) : undefined;
  return modelCall ? { ...step, kind, modelCall } : { ...step, kind };
}

/**
 * The stored result or error of an ended run: decoded when its text is short, else the
 * start of it as the database cut it (a 1 MB result is never read whole for a page).
 */
async function outcomeOf(handle: RunHandle): Promise<RunOutcomeJson | null> {
  const stored = await handle.outcome({ valueChars: MAX_VALUE_TEXT });
  if (stored === null) return null;
  if ('result' in stored) {
    return stored.result.truncated ? { resultPreview: stored.result } : decodedOutcomeOf(handle);
  }
  return stored.length > MAX_VALUE_TEXT ? { error: stored.error } : decodedOutcomeOf(handle);
}

/**
 * The outcome decoded, as a caller of the run gets it. `result()` answers at once for an
 * ended run; the time limit only guards against a run put back to work (`retry`) in between.
 */
async function decodedOutcomeOf(handle: RunHandle): Promise<RunOutcomeJson | null> {
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
