import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { checkOutage, RefundDesk } from './fixtures/RefundDesk';
import { callTool, stdioClient, untilTaskStatus } from './support/mcpClients';

const BACKENDS: Backend[] = ['sqlite-file', 'postgres', 'mariadb'];

describe.each(BACKENDS)('waymark mcp over stdio on %s', (backend) => {
  let db: TestDatabase;
  let runtime: WaymarkRuntime;
  let client: Client;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    runtime = await Waymark.create({ database: db.url });
    runtime.register(RefundDesk);
    // The MCP server executes no run: this worker does, as one would in production.
    runtime.startWorker({ pollInterval: '20ms' });
    client = await stdioClient(db.url);
  });
  afterAll(async () => {
    await client?.close();
    await runtime?.close({ grace: 0 });
    await db?.drop();
  });

  it('shows a run waiting for an approval as input_required; approve completes it and tasks/result answers its result', async () => {
    const run = await runtime.start(RefundDesk, 'refund', ['A1']);
    const waiting = await untilTaskStatus(client, run.runId, 'input_required');
    expect(waiting).toMatchObject({ taskId: 'refund-A1', ttl: null });
    expect(waiting.statusMessage).toContain('signal:approval');

    const approved = await callTool(client, 'approve', { runId: run.runId });
    expect(approved).toMatchObject({ signal: 'approval', approved: true });

    await untilTaskStatus(client, run.runId, 'completed');
    const result = await client.experimental.tasks.getTaskResult(run.runId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      result: { orderId: 'A1', approved: true, by: 'mcp-owner' },
    });
    expect(result.isError).toBeUndefined();
  });

  it('delivers a signal with tasks/update, to the signal the run waits for', async () => {
    const run = await runtime.start(RefundDesk, 'refund', ['B22']);
    await untilTaskStatus(client, run.runId, 'input_required');
    const task = await client.request(
      {
        method: 'tasks/update' as never,
        params: { taskId: run.runId, payload: { approved: false } },
      },
      GetTaskResultSchema,
    );
    expect(task.taskId).toBe(run.runId);
    await untilTaskStatus(client, run.runId, 'completed');
    await expect(run.result()).resolves.toEqual({
      orderId: 'B22',
      approved: false,
      by: 'mcp-owner',
    });
  });

  it('cancels a working run with tasks/cancel: the task is cancelled and its result an error', async () => {
    const run = await runtime.start(RefundDesk, 'report', ['C3']);
    // Sleeping a day: the run will go on by itself, so it is working, not input_required.
    await untilTaskStatus(client, run.runId, 'working');
    const cancelled = await client.experimental.tasks.cancelTask(run.runId);
    expect(cancelled.status).toBe('cancelled');
    await expect(run.status()).resolves.toBe('cancelled');
    const result = await client.experimental.tasks.getTaskResult(run.runId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.structuredContent)).toContain('by mcp-owner via MCP');
  });

  it('shows a failed run as failed; the retry tool runs it again to completion', async () => {
    checkOutage.broken = true;
    const run = await runtime.start(RefundDesk, 'check', ['D4']);
    await expect(run.result()).rejects.toThrow('inspection of D4 is down');
    await untilTaskStatus(client, run.runId, 'failed');
    const failed = await client.experimental.tasks.getTaskResult(run.runId, CallToolResultSchema);
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.structuredContent)).toContain('inspection of D4 is down');

    checkOutage.broken = false;
    const retried = await callTool(client, 'retry', { runId: run.runId });
    expect(retried.task.taskId).toBe(run.runId);
    await untilTaskStatus(client, run.runId, 'completed');
    const result = await client.experimental.tasks.getTaskResult(run.runId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ result: 'checked D4' });
  });

  it('lists and shows runs, lists tasks, and forks a run into a new task', async () => {
    const run = await runtime.start(RefundDesk, 'refund', ['E5']);
    await untilTaskStatus(client, run.runId, 'input_required');

    const listed = await callTool(client, 'list', { workflow: 'mcp-refund', status: 'waiting' });
    expect(listed.runs.map((r: { runId: string }) => r.runId)).toContain(run.runId);
    const shown = await callTool(client, 'show', { runId: run.runId });
    expect(shown.run).toMatchObject({
      runId: run.runId,
      status: 'waiting',
      waitingFor: 'signal:approval',
    });
    expect(shown.steps.map((s: { name: string }) => s.name)).toEqual(['quote', 'signal:approval']);
    const tasks = await client.experimental.tasks.listTasks();
    expect(tasks.tasks).toContainEqual(
      expect.objectContaining({ taskId: run.runId, status: 'input_required' }),
    );

    const forked = await callTool(client, 'fork', {
      runId: run.runId,
      fromSeq: 1,
      newRunId: 'refund-E5-fork',
    });
    expect(forked.task.taskId).toBe('refund-E5-fork');
    // The fork keeps the quote and waits for its own approval.
    await untilTaskStatus(client, 'refund-E5-fork', 'input_required');
    await callTool(client, 'approve', { runId: 'refund-E5-fork', approved: false });
    await untilTaskStatus(client, 'refund-E5-fork', 'completed');
    await callTool(client, 'cancel', { runId: run.runId, reason: 'test done' });
    await untilTaskStatus(client, run.runId, 'cancelled');
  });

  it('replays a completed run from a step, on the code of the module given with --module', async () => {
    const run = await runtime.start(RefundDesk, 'refund', ['F6']);
    await untilTaskStatus(client, run.runId, 'input_required');
    await callTool(client, 'approve', { runId: run.runId });
    await untilTaskStatus(client, run.runId, 'completed');
    const { steps } = await callTool(client, 'show', { runId: run.runId });
    const wait = steps.find((s: { name: string }) => s.name.startsWith('signal:'));
    const { report } = await callTool(client, 'replay', {
      runId: run.runId,
      from: wait.seq,
      override: { [wait.seq]: { approved: false, decidedBy: 'replayer' } },
    });
    expect(report).toMatchObject({
      sourceRunId: run.runId,
      fromSeq: wait.seq,
      result: { changed: true, after: { orderId: 'F6', approved: false, by: 'replayer' } },
    });
  });

  it('names what was wrong: an unknown run, unknown arguments, an unknown tool', async () => {
    await expect(client.experimental.tasks.getTask('no-such-run')).rejects.toThrow(
      'no run with id "no-such-run"',
    );
    await expect(callTool(client, 'show', { runId: 'no-such-run' })).rejects.toThrow(
      'no run with id "no-such-run"',
    );
    await expect(callTool(client, 'retry', { runId: 'refund-A1', force: true })).rejects.toThrow(
      /Invalid arguments for tool retry[\s\S]*force/,
    );
    await expect(callTool(client, 'approve', { runId: 'refund-A1' })).rejects.toThrow(
      'run "refund-A1" waits for no signal (it is completed)',
    );
    await expect(callTool(client, 'erase', { runId: 'refund-A1' })).rejects.toThrow(
      'Tool erase not found',
    );
  });
});
