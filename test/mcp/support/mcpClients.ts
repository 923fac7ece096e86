import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, GetTaskResult } from '@modelcontextprotocol/sdk/types.js';

const REPO = resolve(__dirname, '../../..');

/** The CLI from source, as test/cli runs it. */
const ENTRY = ['-r', '@swc-node/register', 'src/cli/main.ts'];

/** A client of the SDK's, connected to `waymark mcp` spawned over stdio. */
export async function stdioClient(db: string, env: Record<string, string> = {}): Promise<Client> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !entry[0].startsWith('WAYMARK_'),
    ),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...ENTRY, 'mcp', '--db', db, '--module', 'test/mcp/fixtures/RefundDesk.ts'],
    cwd: REPO,
    env: { ...base, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'waymark-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A client of the SDK's, connected over Streamable HTTP with `token` (none: no header). */
export async function httpClient(url: string, token: string | undefined): Promise<Client> {
  const headers: Record<string, string> =
    token === undefined ? {} : { authorization: `Bearer ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'waymark-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Calls tool `name`; its JSON answer, or a thrown Error with its text when it is `isError`. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  if (result.isError === true) throw new Error(text);
  return JSON.parse(text);
}

/** Asks `tasks/get` until the task has `status` (each answer checked by the SDK's schema). */
export async function untilTaskStatus(
  client: Client,
  taskId: string,
  status: GetTaskResult['status'],
): Promise<GetTaskResult> {
  for (let asked = 0; ; asked += 1) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (task.status === status) return task;
    if (asked > 600) throw new Error(`task ${taskId} is still ${task.status}, not ${status}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}
