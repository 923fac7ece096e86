import type {
  FunctionTool,
  RunContext,
  Tool,
  ToolExecuteArgument,
  ToolInputParameters,
} from '@openai/agents';
import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { parseDuration, type Duration } from '../ground/Duration';
import { inWorkflowCode, runInlineStep } from '../runtime/inlineStep';
import { reportedTool } from './callReports';
import { limiterOption } from './limiterOption';
import { TOOL_STEP_PREFIX } from './stepKinds';
import { isToolApprovalDeniedError } from './ToolApprovalDeniedError';
import { awaitToolApproval, inApprovalTurn } from './toolApproval';

/** Options of one function tool in {@link durableAgentTools}. */
export interface DurableAgentToolOptions {
  /**
   * Hold the call until the signal `approve:<callId>` says `{ approved: true }`: `true`, or
   * decided from the parsed arguments. The tool's own `needsApproval` is honoured the same way.
   */
  needsApproval?: boolean | ((input: unknown) => boolean | PromiseLike<boolean>);
  /** How long a call waits for its approval before `SignalTimeoutError`; default forever. */
  approvalTimeout?: Duration;
  /**
   * A named limiter (`runtime.limiter(name, …)`) every attempt passes through, shared with
   * `@Step({ limiter })` steps: its concurrency and rate hold across workers, and a 429 with
   * `Retry-After` pauses every call under it until then.
   */
  limiter?: string;
}

/**
 * Makes each function tool's call a step of the run (`tool:<name>`, idempotency key
 * `${runId}:tool:<callId>`), replayed on resume. A call that needs approval (the tool's own
 * `needsApproval`, or `options[name].needsApproval`) records its proposal in a step
 * `approval-request` and waits for the signal `approve:<callId>` instead of ending `run()`
 * with an interruption; a rejection is returned to the model as the tool's output, the
 * text of `ToolApprovalDeniedError` (`tool call "…" of refund was not approved: <reason>`).
 * Other tools (hosted, computer) are left as they are: they run at the provider, inside the
 * model call's step. Outside a run, tools (and the SDK's own approvals) work as before.
 *
 * @example
 * ```ts
 * const tools = durableAgentTools([lookupOrder, refund], { refund: { needsApproval: true } });
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tools' own types come back as given (a tuple stays a tuple), whatever context each tool declares
export function durableAgentTools<T extends Tool<any>[]>(
  tools: T,
  options: Record<string, DurableAgentToolOptions> = {},
): T {
  const names = tools.map((tool) => (tool.type === 'function' ? tool.name : undefined));
  for (const name of Object.keys(options)) {
    if (!names.includes(name)) {
      throw new InvalidArgumentError(
        `durableAgentTools(): options.${name}`,
        `names no function tool; they are ${names.filter(Boolean).join(', ') || '(none)'}`,
      );
    }
  }
  // Each tool keeps its type: a function tool comes back as a function tool of the same shape.
  return tools.map((tool: Tool<unknown>) =>
    tool.type === 'function' ? durableFunctionTool(tool, options[tool.name] ?? {}) : tool,
  ) as T;
}

function durableFunctionTool<C, P extends ToolInputParameters, R>(
  tool: FunctionTool<C, P, R>,
  options: DurableAgentToolOptions,
): FunctionTool<C, P, R> {
  const invoke = tool.invoke.bind(tool);
  const limiter = limiterOption(options.limiter, `durableAgentTools(): ${tool.name}.limiter`);
  const ownRule = tool.needsApproval.bind(tool);
  const approvalTimeout =
    options.approvalTimeout === undefined
      ? undefined
      : parseDuration(options.approvalTimeout, `durableAgentTools(): ${tool.name}.approvalTimeout`);
  const needsApproval = async (
    runContext: RunContext,
    input: ToolExecuteArgument<P>,
    callId: string,
  ): Promise<boolean> => {
    const rule = options.needsApproval;
    if (rule === true || (typeof rule === 'function' && (await rule(input)))) return true;
    return ownRule(runContext, input, callId);
  };
  return {
    ...tool,
    // Inside a run the wait happens in `invoke`, durably; outside one, the SDK asks as usual.
    needsApproval: (runContext, input, callId) =>
      inWorkflowCode() || callId === undefined
        ? Promise.resolve(false)
        : needsApproval(runContext, input, callId),
    invoke: async (runContext, input, details) => {
      const callId = details?.toolCall?.callId;
      if (!inWorkflowCode() || callId === undefined) return invoke(runContext, input, details);
      // What the SDK passes to `needsApproval`: the model's arguments, parsed.
      const args = parsedArguments(input) as ToolExecuteArgument<P>;
      const step = () =>
        runInlineStep(
          { name: `${TOOL_STEP_PREFIX}${tool.name}`, key: `tool:${callId}`, limiter },
          () => reportedTool(tool.name, callId, () => invoke(runContext, input, details)),
        );
      if (!(await needsApproval(runContext, args, callId))) return step();
      return inApprovalTurn(async () => {
        try {
          await awaitToolApproval(tool.name, callId, args, approvalTimeout);
        } catch (error) {
          if (isToolApprovalDeniedError(error)) return error.message;
          throw error;
        }
        return step();
      });
    },
  };
}

/** The model's arguments (a JSON text) as the SDK's `needsApproval` sees them. */
function parsedArguments(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input; // the tool itself reports malformed arguments to the model
  }
}
