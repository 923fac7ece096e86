/**
 * `node -r @swc-node/register examples/mcp-agent/main.ts [ticket]`
 *
 * Starts the order MCP server on a free port, then runs (or, for a ticket already answered,
 * answers from the store) the order agent of `ticket`. The model is a scripted stand-in
 * unless OPENAI_API_KEY is set (then WAYMARK_AI_MODEL, default gpt-4o-mini). Runs are stored
 * in WAYMARK_DATABASE_URL (default `sqlite:./mcp-agent.db`).
 */
import 'reflect-metadata';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { AddressInfo } from 'node:net';
import { container } from 'tsyringe';
import { Waymark } from 'waymark';
import { ORDER_AGENT_ENV, OrderAgent } from './OrderAgent';
import { orderServer } from './orderServer';
import { scriptedModel } from './scriptedModel';

async function main(): Promise<void> {
  const ticket = process.argv[2] ?? '1001';
  const server = orderServer((orderId, key) =>
    console.log(`[mcp server] lookupOrder ${orderId} (key ${String(key)})`),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiKey = process.env.OPENAI_API_KEY;
  const model = apiKey
    ? createOpenAICompatible({
        name: 'openai',
        baseURL: 'https://api.openai.com/v1',
        apiKey,
      }).chatModel(process.env.WAYMARK_AI_MODEL ?? 'gpt-4o-mini')
    : scriptedModel();
  container.register(ORDER_AGENT_ENV, {
    useValue: { model, mcpUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` },
  });
  const runtime = await Waymark.create({
    database: process.env.WAYMARK_DATABASE_URL ?? 'sqlite:./mcp-agent.db',
  });
  runtime.on('step.replayed', (e) => console.log(`[replayed] #${e.seq} ${e.step}`));
  runtime.on('step.completed', (e) => console.log(`[step] #${e.seq} ${e.step}`));
  try {
    const text = await container.resolve(OrderAgent).answer(ticket, 'Where is my order 1?');
    console.log(`[answer] ${text}`);
  } finally {
    await runtime.close();
    server.closeAllConnections();
    server.close();
  }
}

void main();
