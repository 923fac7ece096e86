import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/**
 * An MCP server with one tool, `lookupOrder`, over Streamable HTTP at `/mcp`, stateful (one
 * session per client). `onCall` hears every call that really reaches the server.
 */
export function orderServer(onCall: (orderId: string, key: unknown) => void): Server {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  return createServer((req, res) => {
    void (async () => {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!transport) {
        const fresh: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, fresh),
        });
        const mcp = new McpServer({ name: 'orders', version: '1.0.0' });
        mcp.registerTool(
          'lookupOrder',
          { description: 'Looks an order up', inputSchema: { orderId: z.string() } },
          ({ orderId }, extra) => {
            onCall(orderId, extra._meta?.['waymark/idempotency-key']);
            return { content: [{ type: 'text', text: `order ${orderId}: delivered` }] };
          },
        );
        await mcp.connect(fresh);
        transport = fresh;
      }
      await transport.handleRequest(req, res);
    })();
  });
}
