import type * as McpServerModule from '@modelcontextprotocol/sdk/server/mcp.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/server/stdio.js';
import type * as StreamableHttpModule from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as McpTypesModule from '@modelcontextprotocol/sdk/types.js';
import type * as ZodModule from 'zod/v4';
import { loadOptionalPeer } from '../ground/optionalPeer';

/** The parts of the official MCP SDK (and its zod) the server is made of. */
export interface McpSdk {
  readonly server: typeof McpServerModule;
  readonly http: typeof StreamableHttpModule;
  readonly stdio: typeof StdioModule;
  readonly types: typeof McpTypesModule;
  readonly z: typeof ZodModule;
}

const PACKAGE = '@modelcontextprotocol/sdk';

/**
 * The SDK, loaded when a server is made (not when `waymark/mcp` is imported), so a missing
 * package is a `ConfigurationError` naming what to install.
 */
export function loadMcpSdk(user: string): McpSdk {
  return {
    server: peer<typeof McpServerModule>(user, PACKAGE, 'server/mcp.js'),
    http: peer<typeof StreamableHttpModule>(user, PACKAGE, 'server/streamableHttp.js'),
    stdio: peer<typeof StdioModule>(user, PACKAGE, 'server/stdio.js'),
    types: peer<typeof McpTypesModule>(user, PACKAGE, 'types.js'),
    // The SDK's own schema library (a dependency of the SDK), so tool arguments are checked as it checks them.
    z: peer<typeof ZodModule>(user, 'zod', 'v4'),
  };
}

/**
 * `pkg/subpath`; when it is missing, the error names the package to install (`npm install
 * @modelcontextprotocol/sdk`), not the subpath.
 */
function peer<T>(user: string, pkg: string, subpath: string): T {
  try {
    return loadOptionalPeer<T>(user, `${pkg}/${subpath}`);
  } catch (error) {
    loadOptionalPeer<unknown>(user, pkg);
    throw error;
  }
}
