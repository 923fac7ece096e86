import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { roleAllows, type ConsoleRole } from '../console/ConsoleRole';
import { httpStatusOf } from '../console/httpStatusOf';
import { isWaymarkError } from '../errors/WaymarkError';
import type { McpCaller } from './McpCaller';
import type { McpSdk } from './mcpSdk';

/**
 * The MCP error for a failure: a caller's mistake (an unknown run, a run in the wrong state,
 * a decision already made, bad arguments — what the console answers with 4xx) is
 * `InvalidParams` with the runtime's message; anything else is `InternalError`. A waymark
 * error's code goes along as `data.code` (`RUN_NOT_FOUND`).
 */
export function mcpFailure(sdk: McpSdk, error: unknown): McpError {
  const { McpError, ErrorCode } = sdk.types;
  if (error instanceof McpError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const data = isWaymarkError(error) ? { code: error.code } : undefined;
  const code = httpStatusOf(error) < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, message, data);
}

/**
 * Refuses a call the caller's role does not allow, naming the role it needs (as the
 * console's 403 does): `approve needs the operator role; the token of "desk" has the viewer role`.
 */
export function requireMcpRole(
  sdk: McpSdk,
  caller: McpCaller,
  needed: ConsoleRole,
  what: string,
): void {
  if (roleAllows(caller.role, needed)) return;
  throw new sdk.types.McpError(
    sdk.types.ErrorCode.InvalidRequest,
    `${what} needs the ${needed} role; the token of "${caller.name}" has the ${caller.role} role`,
    { needed, held: caller.role },
  );
}
