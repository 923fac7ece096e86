/**
 * `waymark/ai`: model calls and tool calls of the Vercel AI SDK (`ai` 6) as steps of a run.
 * Needs the optional peer dependency `ai`; `import 'waymark'` never loads it.
 *
 * @packageDocumentation
 */
// tsyringe throws at load without the metadata polyfill, and this entry point may be loaded first.
import 'reflect-metadata';

export { durableModel, durableMiddleware, type DurableModelOptions } from './durableModel';
export type { LanguageModelV3 } from './modelTypes';
export {
  durableTools,
  type DurableToolOptions,
  type DurableToolOptionsByName,
  type StorableToolOutputs,
} from './durableTools';
export {
  APPROVAL_REQUEST_STEP,
  type ApprovalRule,
  type ToolApproval,
  type ToolApprovalRequest,
} from './toolApproval';
export { ToolApprovalDeniedError, isToolApprovalDeniedError } from './ToolApprovalDeniedError';
export { classifyModelError, isRetryableModelError, DEFAULT_MODEL_RETRY } from './modelErrors';
export { durableModelProvider, type DurableModelProviderOptions } from './agentsAdapter';
export { durableAgentTools, type DurableAgentToolOptions } from './durableAgentTools';
export {
  mcpTools,
  MCP_IDEMPOTENCY_KEY_META,
  type McpClient,
  type McpToolDefinition,
  type McpToolOptionsByName,
  type McpToolResult,
} from './mcpTools';
export { durableMcpTools, type AiSdkMcpClient } from './durableMcpTools';
