import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { WorkerProcess } from '../crash/support/WorkerProcess';
import { ShopHttpServer, type ShopCall } from './fixtures/mcpShopServer';
import type { ShopAnswer } from './support/McpShopWorkflow';

const WORKER = 'test/ai/fixtures/mcpShopWorker.ts';
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

describe.each(BACKENDS)(
  'an agent with MCP tools killed with SIGKILL during its refund call, on %s',
  (backend) => {
    let db: TestDatabase;
    let shop: ShopHttpServer;
    const held: Array<() => void> = [];
    beforeAll(async () => {
      db = await createTestDatabase(backend);
      shop = await ShopHttpServer.start();
    });
    afterAll(async () => {
      for (const release of held) release();
      await shop?.close();
      await db?.drop();
    });

    /** Runs the ticket in a process killed inside its first refund call, then in a second. */
    async function killDuringRefund(ticket: string, refund: 'once' | 'retry', client = 'sdk') {
      shop.calls.length = 0;
      const refundArrived = new Promise<void>((arrived) => {
        let holding = true;
        shop.onCall((call: ShopCall) => {
          if (call.tool !== 'refund' || !holding) return;
          holding = false;
          arrived();
          return new Promise<void>((resolve) => void held.push(resolve));
        });
      });
      const args = [db.url, shop.url, ticket, refund, client];
      const first = WorkerProcess.start(WORKER, args, { timeoutMs: 60_000 });
      await refundArrived;
      first.kill();
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

      const second = WorkerProcess.start(WORKER, args, { timeoutMs: 60_000 });
      await second.succeeded();
      const line = second.lines.find((l) => l.startsWith('result '))!;
      return { second, answer: JSON.parse(line.slice(7)) as ShopAnswer };
    }

    it('a completed MCP call is not made again, and a retryable refund is made again', async () => {
      const { second, answer } = await killDuringRefund(`retry-${backend}`, 'retry');
      const runId = `mcp-retry-${backend}`;
      expect(shop.calls.map((c) => [c.tool, c.idempotencyKey])).toEqual([
        ['lookupOrder', `${runId}:tool:call_lookup_1`],
        ['refund', `${runId}:tool:call_refund_1`],
        ['refund', `${runId}:tool:call_refund_1`],
      ]);
      // The resumed process opened its own MCP session.
      expect(shop.calls[2].sessionId).not.toBe(shop.calls[0].sessionId);
      expect(second.lines.filter((l) => l.startsWith('replayed '))).toEqual([
        'replayed 0 model:shop-model',
        'replayed 1 tool:lookupOrder',
        'replayed 2 model:shop-model',
      ]);
      expect(answer.toolErrors).toEqual([]);
      expect(answer.toolResults).toHaveLength(2);
    }, 120_000);

    it('an at-most-once refund cut by the kill is not made again: the model is told UnknownOutcomeError', async () => {
      const { answer } = await killDuringRefund(`once-${backend}`, 'once');
      expect(shop.calls.map((c) => c.tool)).toEqual(['lookupOrder', 'refund']);
      expect(answer.toolErrors).toEqual(['UnknownOutcomeError']);
    }, 120_000);

    it("with the AI SDK's MCP client, an at-most-once refund cut by the kill is not made again either", async () => {
      const { second, answer } = await killDuringRefund(`ai-sdk-${backend}`, 'once', 'ai-sdk');
      expect(shop.calls.map((c) => c.tool)).toEqual(['lookupOrder', 'refund']);
      expect(second.lines).toContain('replayed 1 tool:lookupOrder');
      expect(answer.toolErrors).toEqual(['UnknownOutcomeError']);
    }, 120_000);
  },
);
