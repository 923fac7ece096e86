import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { generateToken, hashConsoleToken } from 'waymark/console';
import { startMcpServer, type RunningMcpServer } from 'waymark/mcp';
import { waymark } from '../cli/support/waymarkCli';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { ConsoleShop } from '../console/fixtures/ConsoleShop';
import { RefundDesk } from './fixtures/RefundDesk';
import { callTool, httpClient, stdioClient, untilTaskStatus } from './support/mcpClients';

const VIEWER = generateToken();
const OPERATOR = generateToken();
const TOKENS = [
  { role: 'viewer' as const, sha256: hashConsoleToken(VIEWER), name: 'desk' },
  { role: 'operator' as const, sha256: hashConsoleToken(OPERATOR), name: 'dana' },
];
const TOKENS_VARIABLE = TOKENS.map((t) => `${t.role}:${t.sha256}:${t.name}`).join(',');

let db: TestDatabase;
let runtime: WaymarkRuntime;
let served: RunningMcpServer;
const clients: Client[] = [];

beforeAll(async () => {
  db = await createTestDatabase('sqlite-file');
  runtime = await Waymark.create({ database: db.url });
  runtime.register(RefundDesk, ConsoleShop);
  runtime.startWorker({ pollInterval: '20ms' });
  served = await startMcpServer(runtime, { port: 0, tokens: TOKENS });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await served?.close();
  await runtime?.close({ grace: 0 });
  await db?.drop();
});

async function connected(url: string, token: string | undefined): Promise<Client> {
  const client = await httpClient(url, token);
  clients.push(client);
  return client;
}

describe('waymark mcp over Streamable HTTP', () => {
  it('refuses a client without a token, or with a token it does not know', async () => {
    const required = 'a console token is required: Authorization: Bearer <token>';
    await expect(httpClient(served.url, undefined)).rejects.toThrow(required);
    await expect(httpClient(served.url, generateToken())).rejects.toThrow(required);
    const bare = await fetch(served.url, { method: 'POST', body: '{}' });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('lets a viewer read tasks but refuses its approve, tasks/update and tasks/cancel, naming the role needed', async () => {
    const run = await runtime.start(RefundDesk, 'refund', ['V1']);
    const viewer = await connected(served.url, VIEWER);
    await untilTaskStatus(viewer, run.runId, 'input_required');
    const refused = 'needs the operator role; the token of "desk" has the viewer role';
    await expect(callTool(viewer, 'approve', { runId: run.runId })).rejects.toThrow(
      `approve ${refused}`,
    );
    await expect(
      viewer.request(
        { method: 'tasks/update' as never, params: { taskId: run.runId, payload: {} } },
        GetTaskResultSchema,
      ),
    ).rejects.toThrow(`tasks/update ${refused}`);
    await expect(viewer.experimental.tasks.cancelTask(run.runId)).rejects.toThrow(
      `tasks/cancel ${refused}`,
    );
    await expect(run.status()).resolves.toBe('waiting');
  });

  it('lets an operator approve: the run completes with the operator named as the decider', async () => {
    const run = await runtime.start(RefundDesk, 'refund', ['O2']);
    const operator = await connected(served.url, OPERATOR);
    await untilTaskStatus(operator, run.runId, 'input_required');
    await callTool(operator, 'approve', { runId: run.runId, reason: 'looks right' });
    await untilTaskStatus(operator, run.runId, 'completed');
    const result = await operator.experimental.tasks.getTaskResult(run.runId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({
      result: { orderId: 'O2', approved: true, by: 'dana' },
    });
  });
});

describe('approving a waymark/ai tool call over MCP', () => {
  it('decides the call list shows, refuses a changed request, and a second decision once the run ended', async () => {
    const run = await runtime.start(ConsoleShop, 'proposeRefund', ['mcp', 150, 'ok']);
    const operator = await connected(served.url, OPERATOR);
    await untilTaskStatus(operator, run.runId, 'input_required');
    const { runs } = await callTool(operator, 'list', { waitingFor: 'signal' });
    const { approval } = runs.find((listed: { runId: string }) => listed.runId === run.runId);
    expect(approval).toMatchObject({ tool: 'refund', toolCallId: 'call-mcp' });
    const decision = {
      runId: run.runId,
      toolCallId: approval.toolCallId,
      waitSeq: approval.waitSeq,
    };

    await expect(
      callTool(operator, 'approve', { ...decision, digest: '0'.repeat(64) }),
    ).rejects.toThrow('reload it and decide again');
    await expect(run.status()).resolves.toBe('waiting');

    const approved = await callTool(operator, 'approve', { ...decision, digest: approval.digest });
    expect(approved.signal).toBe('approve:call-mcp');
    await expect(run.result()).resolves.toBe('refunded 150 on order-mcp');
    await expect(callTool(operator, 'approve', { ...decision, approved: false })).rejects.toThrow(
      'cannot signal "approve:call-mcp" to run "tool-approval-mcp": it is already completed',
    );
  });
});

describe('tasks/result of a run with a large result', () => {
  it('answers the start of the stored text, cut in the database, never the whole value', async () => {
    const run = await runtime.start(RefundDesk, 'big', ['L1', 1_000_000]);
    await run.result();
    const viewer = await connected(served.url, VIEWER);
    const result = await viewer.experimental.tasks.getTaskResult(run.runId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      resultPreview: { truncated: true, length: 1_000_002 },
    });
    expect(JSON.stringify(result).length).toBeLessThan(5_000);
  });
});

describe('the waymark mcp command', () => {
  it('serves HTTP with the console tokens, printing no token it was given', async () => {
    const child = spawnHttp(db.url, TOKENS_VARIABLE);
    try {
      const url = await printedUrl(child);
      await expect(httpClient(url, undefined)).rejects.toThrow('a console token is required');
      const operator = await connected(url, OPERATOR);
      const { runs } = await callTool(operator, 'list', { workflow: 'mcp-refund' });
      expect(runs.length).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('close', done));
    }
  });

  it("refuses --host ''", async () => {
    const result = await waymark(['mcp', '--http', '0', '--host', ''], { db: db.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--host must name an address');
  });

  it('over stdio, gives the session the role of the token in WAYMARK_MCP_TOKEN', async () => {
    const run = await runtime.start(RefundDesk, 'refund', ['S3']);
    const viewer = await stdioClient(db.url, {
      WAYMARK_MCP_TOKEN: VIEWER,
      WAYMARK_CONSOLE_TOKENS: TOKENS_VARIABLE,
    });
    clients.push(viewer);
    await untilTaskStatus(viewer, run.runId, 'input_required');
    await expect(callTool(viewer, 'approve', { runId: run.runId })).rejects.toThrow(
      'approve needs the operator role; the token of "desk" has the viewer role',
    );
  });

  it('over stdio, refuses --token (the session token comes from WAYMARK_MCP_TOKEN)', async () => {
    const result = await waymark(['mcp', '--token', generateToken()], { db: db.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--token is for --http');
  });

  it('over stdio, refuses to start with a WAYMARK_MCP_TOKEN that is none of the tokens', async () => {
    const result = await waymark(['mcp'], {
      db: db.url,
      env: { WAYMARK_MCP_TOKEN: generateToken(), WAYMARK_CONSOLE_TOKENS: TOKENS_VARIABLE },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('WAYMARK_MCP_TOKEN is none of the tokens given');
  });
});

const REPO = resolve(__dirname, '../..');

function spawnHttp(db: string, tokens: string): ChildProcessByStdio<null, Readable, Readable> {
  const env: NodeJS.ProcessEnv = { ...process.env, WAYMARK_CONSOLE_TOKENS: tokens };
  delete env.WAYMARK_DATABASE_URL;
  return spawn(
    process.execPath,
    ['-r', '@swc-node/register', 'src/cli/main.ts', 'mcp', '--db', db, '--http', '0'],
    { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

/** The endpoint `waymark mcp --http` prints, after checking the line holds no token. */
function printedUrl(child: ChildProcessByStdio<null, Readable, Readable>): Promise<string> {
  return new Promise((done, fail) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /waymark mcp: (\S+) \(Authorization: Bearer (\S+)\)/.exec(stdout);
      if (match) done(match[2] === '<your-token>' ? match[1] : `printed a token: ${match[2]}`);
    });
    child.once('close', (code) => fail(new Error(`exited with ${String(code)}: ${stdout}`)));
  });
}
