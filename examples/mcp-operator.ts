/** The MCP server guide's example: a run waiting for approval, approved by an MCP client. */
import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { injectable } from 'tsyringe';
import { Step, Waymark, Workflow, WorkflowContext } from 'waymark';
import { generateToken, hashConsoleToken } from 'waymark/console';
import { startMcpServer } from 'waymark/mcp';

@injectable()
class Refunds {
  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'refund', id: (orderId: string) => `refund-${orderId}` })
  async refund(orderId: string): Promise<string> {
    const amount = await this.quote(orderId);
    const approval = await this.ctx.waitForSignal<{ approved: boolean; decidedBy: string }>(
      'approval',
    );
    return approval.approved ? `refunded ${amount} (${approval.decidedBy})` : 'refused';
  }

  @Step()
  async quote(orderId: string): Promise<number> {
    return Promise.resolve(orderId.length * 10);
  }
}

async function main(): Promise<void> {
  const runtime = await Waymark.create({
    database: process.env.WAYMARK_DATABASE_URL ?? 'sqlite:./mcp-example.db',
  });
  runtime.startWorker({ pollInterval: '50ms' });
  const token = generateToken();
  const tokens = [{ role: 'operator' as const, sha256: hashConsoleToken(token), name: 'dana' }];
  const served = await startMcpServer(runtime, { port: 0, tokens });

  const client = new Client({ name: 'example', version: '1.0.0' });
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(
    new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers } }),
  );

  const run = await runtime.start(Refunds, 'refund', ['A-17']);
  // A client polls a task (task id = run id) at its pollInterval until it needs something.
  let task = await client.experimental.tasks.getTask(run.runId);
  while (task.status === 'working') {
    await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? 1000));
    task = await client.experimental.tasks.getTask(run.runId);
  }
  console.log(`${task.taskId}: ${task.status}`); // refund-A-17: input_required

  await client.callTool({ name: 'approve', arguments: { runId: run.runId } });
  // tasks/result waits until the run has ended (a worker resumes it), then answers its result.
  const result = await client.experimental.tasks.getTaskResult(run.runId, CallToolResultSchema);
  console.log(JSON.stringify(result.structuredContent?.result)); // "refunded 40 (dana)"

  await client.close();
  await served.close();
  await runtime.close();
}

void main();
