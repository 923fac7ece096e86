import type { ToolExecutionOptions } from 'ai';
import { NotInRunError } from '../errors/NotInRunError';
import { currentExecution, inWorkflowCode, runInlineStep } from '../runtime/inlineStep';
import { WorkflowContext } from '../runtime/WorkflowContext';
import { APPROVAL_REQUEST_STEP, TOOL_APPROVAL_PREFIX } from '../model/toolApprovalSignals';
import { ToolApprovalDeniedError } from './ToolApprovalDeniedError';

/** Whether a tool call must be approved: always, never, or decided from its input. */
export type ApprovalRule<INPUT> =
  boolean | ((input: INPUT, options: { toolCallId: string }) => boolean | PromiseLike<boolean>);

/**
 * The payload of the signal `approve:<toolCallId>`: a decision. The first one for a request
 * is stored; a later one is refused with `AlreadyDecidedError` and never kept for a later wait.
 */
export interface ToolApproval {
  approved: boolean;
  /** Told to the model when the call is rejected. */
  reason?: string;
  /** Who decides: named to whoever decides the same request after (`AlreadyDecidedError`). */
  decidedBy?: string;
  /**
   * The seq of the wait the decider saw (`approval.waitSeq` in the console's list): the
   * decision answers that request only, and is refused once the run waits elsewhere.
   */
  waitSeq?: number;
  /** The digest of the request the decider saw (`approval.digest`): refused if it differs. */
  digest?: string;
  [field: string]: unknown;
}

/** What the history records before the wait, and the console's approvals list shows. */
export interface ToolApprovalRequest {
  readonly tool: string;
  readonly toolCallId: string;
  readonly input: unknown;
}

export { APPROVAL_REQUEST_STEP };

const context = new WorkflowContext();

/** Per execution of a run: the last approval-needing tool call, which the next one follows. */
const approvalTurns = new WeakMap<object, Promise<unknown>>();

/**
 * Runs `call` — a tool call that needs approval: its approval, then the tool's step — once the
 * run's earlier such calls have ended. Tool calls the model makes in one turn execute in
 * parallel; two that both waited at once would leave the run waiting for one signal while the
 * other's could never be accepted. One after the other, in the order they reach here, each
 * call's steps take the same places on every execution, so a resume replays them. When an
 * earlier call stops the execution (the run released to wait for its approval), the later ones
 * stop with it, without recording anything.
 */
export function inApprovalTurn<T>(call: () => Promise<T>): Promise<T> {
  const run = currentExecution();
  if (!run) return call();
  const earlier = approvalTurns.get(run) ?? Promise.resolve();
  const turn = earlier.then(call);
  approvalTurns.set(run, turn);
  return turn;
}

/** True when any rule (ours, then the tool's own AI SDK `needsApproval`) asks for approval. */
export async function needsApproval(
  rules: ReadonlyArray<ApprovalRule<unknown> | undefined>,
  input: unknown,
  call: ToolExecutionOptions,
): Promise<boolean> {
  for (const rule of rules) {
    if (rule === undefined || rule === false) continue;
    if (rule === true) return true;
    if (await rule(input, call)) return true;
  }
  return false;
}

/**
 * Records the proposed call (tool name, call id, arguments) as a step, then waits for the
 * signal `approve:<toolCallId>`: the run is released to `waiting` meanwhile. Throws
 * {@link ToolApprovalDeniedError} when the answer is not `approved: true`.
 */
export async function awaitToolApproval(
  tool: string,
  toolCallId: string,
  input: unknown,
  timeoutMs: number | undefined,
): Promise<void> {
  if (!inWorkflowCode()) {
    throw new NotInRunError(`the approval of tool ${tool}`, 'run');
  }
  const request: ToolApprovalRequest = { tool, toolCallId, input };
  await runInlineStep({ name: APPROVAL_REQUEST_STEP }, () => Promise.resolve(request));
  const answer = await context.waitForSignal<ToolApproval | undefined>(
    `${TOOL_APPROVAL_PREFIX}${toolCallId}`,
    timeoutMs === undefined ? {} : { timeout: timeoutMs },
  );
  if (answer?.approved !== true) {
    const reason = typeof answer?.reason === 'string' ? answer.reason : undefined;
    throw new ToolApprovalDeniedError(tool, toolCallId, reason);
  }
}
