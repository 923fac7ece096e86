import type { InferToolInput, InferToolOutput, Tool, ToolExecutionOptions, ToolSet } from 'ai';
import type { IsStorable } from '../model/Storable';
import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { parseDuration, type Duration } from '../ground/Duration';
import { resolveRetryPolicy, type RetryOptions } from '../policies/RetryPolicy';
import { inWorkflowCode, runInlineStep, type InlineStepSpec } from '../runtime/inlineStep';
import { WorkflowContext } from '../runtime/WorkflowContext';
import { reportedTool } from './callReports';
import { limiterOption } from './limiterOption';
import { TOOL_STEP_PREFIX } from './stepKinds';
import {
  awaitToolApproval,
  inApprovalTurn,
  needsApproval,
  type ApprovalRule,
} from './toolApproval';

/** Options of one tool in {@link durableTools}. */
export interface DurableToolOptions<INPUT = unknown> {
  /** Retries of `execute`, stored like a `@Retry` step's; default one attempt. */
  retry?: RetryOptions;
  /**
   * Derive the idempotency key from the input, as `@Idempotent({ key })` does: the step's
   * `ctx.idempotencyKey` is `${runId}:${key(input)}` instead of `${runId}:tool:${toolCallId}`,
   * so two calls the model makes for the same thing share one key.
   */
  key?: (input: INPUT) => string;
  /** Never run `execute` twice: a crash mid-call gives `UnknownOutcomeError` on resume. */
  atMostOnce?: boolean;
  /** Longest one attempt may take; `execute` sees it through `abortSignal`. */
  timeout?: Duration;
  /**
   * Hold the call until the signal `approve:<toolCallId>` says `{ approved: true }`; the
   * tool's own AI SDK `needsApproval` is honoured the same way. Default false.
   */
  needsApproval?: ApprovalRule<INPUT>;
  /** How long a call waits for its approval before `SignalTimeoutError`; default forever. */
  approvalTimeout?: Duration;
  /**
   * A named limiter (`runtime.limiter(name, …)`) every attempt passes through, shared with
   * `@Step({ limiter })` steps: its concurrency and rate hold across workers, and a 429 with
   * `Retry-After` pauses every call under it until then.
   */
  limiter?: string;
}

/** Per-tool options of {@link durableTools}, by tool name. */
export type DurableToolOptionsByName<TOOLS extends ToolSet> = {
  [K in keyof TOOLS]?: DurableToolOptions<InferToolInput<TOOLS[K]>>;
};

/** Compiles when every tool's output can be stored, as a step's result must be. */
export type StorableToolOutputs<TOOLS> = {
  [K in keyof TOOLS]: TOOLS[K] extends Tool
    ? [IsStorable<InferToolOutput<TOOLS[K]>>] extends [true]
      ? unknown
      : {
          'the output of a durable tool must be storable: no functions, symbols, promises or class instances with methods': never;
        }
    : unknown;
};

const context = new WorkflowContext();

/**
 * Makes each tool's `execute` a step of the run it is called in: recorded once, replayed
 * on resume (so a tool call the model made before a crash is not made again), with the
 * idempotency key `${runId}:tool:${toolCallId}` in `ctx.idempotencyKey`, and per-tool
 * retries, `atMostOnce` and approval. The tools keep their input and output types. Outside
 * a run they run as they are (a tool that needs approval refuses: waiting needs a run).
 *
 * @example
 * ```ts
 * const tools = durableTools(
 *   { lookupOrder, refund },
 *   { refund: { atMostOnce: true, needsApproval: (input) => input.amount > 100 } },
 * );
 * ```
 */
export function durableTools<TOOLS extends ToolSet>(
  tools: TOOLS & StorableToolOutputs<TOOLS>,
  options: DurableToolOptionsByName<TOOLS> = {},
): TOOLS {
  return wrapTools('durableTools()', tools, options as Record<string, DurableToolOptions>) as TOOLS;
}

/** {@link durableTools} for `caller` (`'mcpTools()'`), whose name its errors give. */
export function wrapTools(
  caller: string,
  tools: ToolSet,
  options: Record<string, DurableToolOptions | undefined>,
): ToolSet {
  for (const name of Object.keys(options)) {
    if (!(name in tools)) {
      throw new InvalidArgumentError(
        `${caller}: options.${name}`,
        `names no tool; the tools are ${Object.keys(tools).join(', ') || '(none)'}`,
      );
    }
  }
  const wrapped: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    wrapped[name] = durableTool(`${caller}: ${name}`, name, tool, options[name] ?? {});
  }
  return wrapped;
}

function durableTool(where: string, name: string, tool: Tool, options: DurableToolOptions): Tool {
  const execute = tool.execute;
  if (!execute) return tool; // a client-side tool: nothing runs here to record
  const limiter = limiterOption(options.limiter, `${where}.limiter`);
  const spec = (toolCallId: string, input?: unknown): InlineStepSpec => ({
    name: `${TOOL_STEP_PREFIX}${name}`,
    key:
      options.key && input !== undefined ? keyOf(options.key, input, where) : `tool:${toolCallId}`,
    retry: options.retry ? resolveRetryPolicy(options.retry, `${where}.retry`) : undefined,
    atMostOnce: options.atMostOnce ?? false,
    limiter,
    timeoutMs:
      options.timeout === undefined
        ? undefined
        : parseDuration(options.timeout, `${where}.timeout`),
  });
  spec('check'); // bad options fail here, at wrapping time
  const approvalTimeout =
    options.approvalTimeout === undefined
      ? undefined
      : parseDuration(options.approvalTimeout, `${where}.approvalTimeout`);
  const rules = [options.needsApproval, tool.needsApproval as ApprovalRule<unknown> | undefined];
  const rest: Tool = { ...tool };
  delete rest.needsApproval; // waymark waits for the approval itself, durably
  return {
    ...rest,
    execute: async (input: unknown, call: ToolExecutionOptions) => {
      const step = () =>
        inWorkflowCode()
          ? runInlineStep(spec(call.toolCallId, input), () =>
              reportedTool(name, call.toolCallId, () =>
                finalOutput(execute(input, { ...call, abortSignal: joined(call.abortSignal) })),
              ),
            )
          : finalOutput(execute(input, call));
      if (!(await needsApproval(rules, input, call))) return step();
      return inApprovalTurn(async () => {
        await awaitToolApproval(name, call.toolCallId, input, approvalTimeout);
        return step();
      });
    },
  };
}

function keyOf(key: (input: never) => string, input: unknown, where: string): string {
  const value = key(input as never);
  if (typeof value !== 'string' || value === '') {
    throw new InvalidArgumentError(
      `${where}.key`,
      `must return a non-empty string, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** The tool's result; for a tool that yields (preliminary results), its last value. */
async function finalOutput(result: unknown): Promise<unknown> {
  if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) {
    let last: unknown;
    for await (const value of result as AsyncIterable<unknown>) last = value;
    return last;
  }
  return result;
}

function joined(signal: AbortSignal | undefined): AbortSignal {
  return signal ? AbortSignal.any([signal, context.signal]) : context.signal;
}
