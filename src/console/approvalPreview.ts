import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import type { RunSummary } from '../model/RunRecords';
import { storedValue, type StoredValue } from '../model/StoredValue';
import { digestOfShownRequest, REQUEST_DIGEST_CHARS } from '../model/approvalDecision';
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
   * SHA-256 (hex) of the request as shown (its tool, call id, the arguments' first 1,000
   * characters, and its length; see `digestOfRequest`): a decision that sends it back
   * (`digest` in the payload) is refused if the request differs from the one shown.
   */
  digest: string;
}

/** A listed run; one waiting for a tool call's approval carries what the call proposes. */
export type ListedRun = RunSummary & { approval?: ToolApprovalPreview };

const WAITING_FOR_APPROVAL = `signal:${TOOL_APPROVAL_PREFIX}`;

/** Characters of the request read besides the input's: its tool name and call id. */
const REQUEST_HEAD_CHARS = 2048;

/**
 * The run with `approval` added when it waits for `approve:<toolCallId>` and its history
 * ends with that call's `approval-request` step. One history page of two records per such
 * run (the wait, and the request before it); the database reads only the request's start,
 * enough for its tool name, call id and the arguments' first 1,000 characters.
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
    // What the digest covers: the head and the arguments' first 1,000 characters.
    valueChars: REQUEST_DIGEST_CHARS,
  });
  const wait = steps.find((step) => step.name === run.waitingFor && step.status === 'started');
  for (const step of steps) {
    if (step.name !== APPROVAL_REQUEST_STEP || step.output === undefined || !wait) continue;
    const approval = previewOf(step.output, toolCallId, wait.seq);
    if (approval) return { ...run, approval };
  }
  return run;
}

/**
 * The preview in the start of a stored request. The codec writes a `ToolApprovalRequest`
 * as `{"tool":…,"toolCallId":…,"input":…}`, in that order: the input's text is what follows
 * the head, without the closing brace.
 */
function previewOf(
  request: StoredValue,
  toolCallId: string,
  waitSeq: number,
): ToolApprovalPreview | undefined {
  const tool = leadingString(request.json, '{"tool":');
  if (tool === undefined) return undefined;
  const head = `{"tool":${JSON.stringify(tool)},"toolCallId":${JSON.stringify(toolCallId)},"input":`;
  if (!request.json.startsWith(head)) return undefined;
  const rest = request.json.slice(head.length);
  const input = request.truncated
    ? {
        ...storedValue(rest, MAX_VALUE_TEXT),
        truncated: true,
        length: request.length - head.length - 1,
      }
    : storedValue(rest.endsWith('}') ? rest.slice(0, -1) : rest, MAX_VALUE_TEXT);
  const length = request.truncated ? request.length : Array.from(request.json).length;
  return { tool, toolCallId, input, waitSeq, digest: digestOfShownRequest(request.json, length) };
}

/** The JSON string right after `prefix` at the start of `json`, else undefined. */
function leadingString(json: string, prefix: string): string | undefined {
  if (!json.startsWith(prefix) || json[prefix.length] !== '"') return undefined;
  // The first quote no backslash escapes ends the string.
  const end = /^"(?:[^"\\]|\\.)*"/.exec(
    json.slice(prefix.length, prefix.length + REQUEST_HEAD_CHARS),
  );
  if (!end) return undefined;
  try {
    return JSON.parse(end[0]) as string;
  } catch {
    return undefined;
  }
}
