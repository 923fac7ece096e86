import type { ConsoleRole } from '../console/ConsoleRole';

/**
 * Who makes the MCP calls of one connection: over HTTP the holder of the console token the
 * request carries; over stdio the owner of the process (an admin) unless a token names another.
 */
export interface McpCaller {
  /** Recorded as `decidedBy` in the signals it sends, and in the reasons of its cancellations. */
  readonly name: string;
  /** What it may call: see `MCP_ROLES`. */
  readonly role: ConsoleRole;
}

/** The caller of a server made without one: whoever started the process, trusted as an admin. */
export const PROCESS_OWNER: McpCaller = Object.freeze({ name: 'mcp-owner', role: 'admin' });
