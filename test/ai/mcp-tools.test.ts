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

  it.each([
    ['http', "the official SDK's client over Streamable HTTP"],
    ['stdio', "the official SDK's client over stdio"],
    ['ai-sdk', "the AI SDK's client over Streamable HTTP"],
  ] as const)(
    'with %s (%s), each MCP tool call is a step whose result is stored, and calling again answers from the store',
    async (transport, _label) => {
      shop.calls.length = 0;
      const server: ShopServer =
        transport === 'stdio' ? 'stdio' : { url: shop.url, aiSdk: transport === 'ai-sdk' };
      const ticket = `t-${transport}`;
      const agent = container.resolve(McpShopWorkflow);
      const first = await agent.answer(ticket, server, true);

      expect(first.text).toBe('Order 1 was refunded.');
      // (the AI SDK's client adds `isError: false`)
      expect(first.toolResults).toMatchObject([
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
      if (transport !== 'stdio') {
        // The server saw each call once; the official SDK's client sent the step's key in _meta.
        const key = (id: string) => (transport === 'http' ? `mcp-${ticket}:tool:${id}` : undefined);
        expect(shop.calls.map((c) => [c.tool, c.idempotencyKey])).toEqual([
          ['lookupOrder', key('call_lookup_1')],
          ['refund', key('call_refund_1')],
        ]);
      }

      const again = await agent.answer(ticket, server, true);
      expect(again).toEqual(first);
      if (transport !== 'stdio') expect(shop.calls).toHaveLength(2);
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
