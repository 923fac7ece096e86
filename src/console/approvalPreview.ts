import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import type { RunSummary } from '../model/RunRecords';
import { storedValue, type StoredValue } from '../model/StoredValue';
import { digestOfRequest } from '../model/approvalDecision';
import { APPROVAL_REQUEST_STEP, TOOL_APPROVAL_PREFIX } from '../model/toolApprovalSignals';
import { MAX_VALUE_TEXT } from './consoleRequests';

/** What the approvals panel shows of a tool call that waits for `approve:<toolCallId>`. */
export interface ToolApprovalPreview {
  /** The tool's name, as given to `durableTools`. */
  tool: string;
  toolCallId: string;
  /**
   * The proposed arguments as stored (JSON, values JSON cannot hold as the codec's tagged
   * objects), cut at 1,000 characters (`MAX_VALUE_TEXT`).
   */
  input: StoredValue;
  /**
   * The seq of the wait in the run's history: a decision that sends it back (`waitSeq` in the
   * payload) answers this request only, never a later wait of the run.
   */
  waitSeq: number;
  /**
   * SHA-256 (hex) of the tool, call id and whole arguments as stored: a decision that sends it
   * back (`digest` in the payload) is refused if the request differs from the one shown.
   */
  digest: string;
}

/** A listed run; one waiting for a tool call's approval carries what the call proposes. */
export type ListedRun = RunSummary & { approval?: ToolApprovalPreview };

const WAITING_FOR_APPROVAL = `signal:${TOOL_APPROVAL_PREFIX}`;

/**
 * The run with `approval` added when it waits for `approve:<toolCallId>` and its history
 * ends with that call's `approval-request` step. One history page of two records per such
 * run (the wait, and the request before it); only the arguments' first 1,000 characters
 * are answered.
 */
export async function withApprovalPreview(
  runtime: WaymarkRuntime,
  run: RunSummary,
): Promise<ListedRun> {
  if (run.status !== 'waiting' || !run.waitingFor?.startsWith(WAITING_FOR_APPROVAL)) return run;
  const toolCallId = run.waitingFor.slice(WAITING_FOR_APPROVAL.length);
  const steps = await runtime.history(run.runId, {
    order: 'desc',
    limit: 2,
    // The request is parsed for its tool name and call id, then its input is cut.
    valueChars: Infinity,
  });
  const wait = steps.find((step) => step.name === run.waitingFor && step.status === 'started');
  for (const step of steps) {
    if (step.name !== APPROVAL_REQUEST_STEP || step.output === undefined || !wait) continue;
    const approval = parsed(step.output.json, toolCallId, wait.seq);
    if (approval) return { ...run, approval };
  }
  return run;
}

function parsed(
  json: string,
  toolCallId: string,
  waitSeq: number,
): ToolApprovalPreview | undefined {
  let request: unknown;
  try {
    request = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (request === null || typeof request !== 'object') return undefined;
  const { tool, toolCallId: id, input } = request as Record<string, unknown>;
  if (typeof tool !== 'string' || id !== toolCallId) return undefined;
  return {
    tool,
    toolCallId,
    input: storedValue(JSON.stringify(input ?? null), MAX_VALUE_TEXT),
    waitSeq,
    digest: digestOfRequest(json)!,
  };
}
