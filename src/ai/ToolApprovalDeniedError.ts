import { brand, hasBrand } from '../errors/brand';
import { WaymarkError } from '../errors/WaymarkError';

/**
 * A tool call held for approval was rejected (the signal `approve:<toolCallId>` came with
 * `approved: false`). Thrown from the tool's `execute`, so the AI SDK hands it to the model
 * as the tool's error and the agent can say the action was declined. With `@openai/agents`
 * (`durableAgentTools`) it is not thrown: its message is returned as the tool's output.
 */
export class ToolApprovalDeniedError extends WaymarkError {
  declare readonly code: 'TOOL_APPROVAL_DENIED';

  constructor(
    readonly toolName: string,
    readonly toolCallId: string,
    readonly reason: string | undefined,
  ) {
    super(
      'TOOL_APPROVAL_DENIED',
      `tool call "${toolCallId}" of ${toolName} was not approved${reason ? `: ${reason}` : ''}`,
    );
  }
}

brand(ToolApprovalDeniedError, 'ToolApprovalDeniedError');

/** True when `error` is a {@link ToolApprovalDeniedError}. */
export function isToolApprovalDeniedError(error: unknown): error is ToolApprovalDeniedError {
  return hasBrand(error, 'ToolApprovalDeniedError');
}
