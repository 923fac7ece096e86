/**
 * `waymark/mcp`: durable runs as MCP tasks, with operator tools, for MCP clients (an agent,
 * Claude Desktop), over stdio or Streamable HTTP. Needs the optional peer
 * `@modelcontextprotocol/sdk`.
 *
 * @packageDocumentation
 */
// tsyringe throws at load without the metadata polyfill, and this entry point may be loaded first.
import 'reflect-metadata';
export type { ConsoleRole } from '../console/ConsoleRole';
export type { ConsoleTokenHash } from '../console/consoleTokens';
export { createMcpServer, type McpServerOptions } from './createMcpServer';
export type { McpCaller } from './McpCaller';
export { MCP_ROLES, type McpCallName } from './mcpRoles';
export {
  MCP_PATH,
  startMcpServer,
  type RunningMcpServer,
  type StartMcpServerOptions,
} from './startMcpServer';
export { taskStatusOf, type McpTaskStatus } from './taskStatusOf';
