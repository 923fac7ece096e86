import type { ConsoleRole } from '../console/ConsoleRole';

/**
 * The role each MCP call needs, with the console's roles: a viewer reads runs and tasks, an
 * operator also acts on them, an admin may do everything.
 */
export const MCP_ROLES = Object.freeze({
  list: 'viewer',
  show: 'viewer',
  'tasks/get': 'viewer',
  'tasks/list': 'viewer',
  'tasks/result': 'viewer',
  signal: 'operator',
  approve: 'operator',
  retry: 'operator',
  cancel: 'operator',
  fork: 'operator',
  replay: 'operator',
  'tasks/update': 'operator',
  'tasks/cancel': 'operator',
} as const satisfies Record<string, ConsoleRole>);

/** A call of the MCP server that {@link MCP_ROLES} gives a role. */
export type McpCallName = keyof typeof MCP_ROLES;
