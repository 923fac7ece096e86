import 'reflect-metadata';
import { container } from 'tsyringe';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isInvalidArgumentError } from 'waymark';
import { mcpTools } from 'waymark/ai';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { ShopHttpServer } from './fixtures/mcpShopServer';
import { McpShopWorkflow, type ShopServer } from './support/McpShopWorkflow';

describe('waymark/ai: tools of an MCP server (the official SDK client) as steps of a run', () => {
  let shop: ShopHttpServer;
  let runtime: TestRuntime;

  beforeAll(async () => {
    shop = await ShopHttpServer.start();
  });
  afterAll(async () => {
    await shop.close();
  });
  beforeEach(async () => {
    runtime = await createTestRuntime();
  });
  afterEach(async () => {
    await runtime.close();
  });

  it.each(['http', 'stdio'] as const)(
    'over %s, each MCP tool call is a step whose result is stored, and calling again answers from the store',
    async (transport) => {
      const server: ShopServer = transport === 'http' ? { url: shop.url } : 'stdio';
      const ticket = `t-${transport}`;
      const agent = container.resolve(McpShopWorkflow);
      const first = await agent.answer(ticket, server, true);

      expect(first.text).toBe('Order 1 was refunded.');
      expect(first.toolResults).toEqual([
        {
          content: [{ type: 'text', text: 'order 1: shipped' }],
          structuredContent: { orderId: '1', status: 'shipped' },
        },
        { content: [{ type: 'text', text: 'refunded 40 on order 1' }] },
      ]);
      const history = await runtime.history(`mcp-${ticket}`);
      expect(history.map((s) => s.name)).toEqual([
        'model:shop-model',
        'tool:lookupOrder',
        'model:shop-model',
        'tool:refund',
        'model:shop-model',
      ]);
      expect(history[1].status).toBe('completed');
      expect(JSON.parse(history[1].output!.json)).toEqual(first.toolResults[0]);
      if (transport === 'http') {
        // The server saw each call once, with the step's idempotency key in _meta.
        expect(shop.calls.map((c) => [c.tool, c.idempotencyKey])).toEqual([
          ['lookupOrder', `mcp-${ticket}:tool:call_lookup_1`],
          ['refund', `mcp-${ticket}:tool:call_refund_1`],
        ]);
      }

      const again = await agent.answer(ticket, server, true);
      expect(again).toEqual(first);
      if (transport === 'http') expect(shop.calls).toHaveLength(2);
    },
    60_000,
  );

  describe('outside a run', () => {
    let client: Client;
    beforeEach(async () => {
      client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(shop.url)));
    });
    afterEach(async () => {
      await client.close();
    });

    it('refuses options naming a tool the server does not list, naming the ones it does', async () => {
      const error: unknown = await mcpTools(client, { refnud: { atMostOnce: true } }).catch(
        (e: unknown) => e,
      );
      expect(isInvalidArgumentError(error)).toBe(true);
      expect((error as Error).message).toContain('mcpTools(): options.refnud');
      expect((error as Error).message).toContain('the tools are lookupOrder, refund');
    });

    it('calls the server directly, with no idempotency key', async () => {
      shop.calls.length = 0;
      const tools = await mcpTools(client);
      const output: unknown = await tools.lookupOrder.execute!(
        { orderId: '7' },
        { toolCallId: 'call_7', messages: [] },
      );
      expect(output).toMatchObject({ structuredContent: { orderId: '7', status: 'shipped' } });
      expect(shop.calls).toEqual([
        expect.objectContaining({ tool: 'lookupOrder', orderId: '7', idempotencyKey: undefined }),
      ]);
    });
  });
});
