import type { ServerResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpContext } from './McpContext';
import { mcpFailure } from './mcpFailure';
import type { McpCallName } from './mcpRoles';

/**
 * Serves runs as MCP tasks (task id = run id): `tasks/get`, `tasks/list`, `tasks/result`
 * (waits until the run ends), `tasks/cancel`, and waymark's `tasks/update`, which the
 * 2025-11-25 specification does not have: `{ taskId, signal?, payload? }` delivers a signal
 * (an approval is one) to the run — by default the signal it waits for — and answers its task.
 */
export function registerTaskHandlers(context: McpContext): void {
  const { sdk, server, tasks, actions } = context;
  const { z } = sdk;
  const handle = <T>(call: McpCallName, work: () => Promise<T>): Promise<ServerResult> =>
    guarded(context, call, work);
  server.server.setRequestHandler(sdk.types.GetTaskRequestSchema, (request) =>
    handle('tasks/get', () => tasks.task(request.params.taskId)),
  );
  server.server.setRequestHandler(sdk.types.ListTasksRequestSchema, (request) =>
    handle('tasks/list', () => tasks.tasks(request.params?.cursor)),
  );
  server.server.setRequestHandler(sdk.types.GetTaskPayloadRequestSchema, (request, extra) =>
    handle('tasks/result', () => tasks.result(request.params.taskId, extra.signal)),
  );
  server.server.setRequestHandler(sdk.types.CancelTaskRequestSchema, (request) =>
    handle('tasks/cancel', async () => {
      await actions.cancel(request.params.taskId, undefined);
      return tasks.task(request.params.taskId);
    }),
  );
  const update = z.object({
    method: z.literal('tasks/update'),
    params: z.strictObject({
      taskId: z.string().min(1),
      signal: z.string().min(1).optional(),
      payload: z.unknown().optional(),
      _meta: z.record(z.string(), z.unknown()).optional(),
    }),
  });
  server.server.setRequestHandler(update, (request) =>
    handle('tasks/update', async () => {
      const { taskId, signal, payload } = request.params;
      await actions.signal(taskId, signal, payload);
      return tasks.task(taskId);
    }),
  );
}

async function guarded<T>(
  context: McpContext,
  call: McpCallName,
  work: () => Promise<T>,
): Promise<ServerResult> {
  try {
    context.allow(call);
    // A task is not among the SDK's ServerResult types (its own handlers cast it too).
    return (await work()) as ServerResult;
  } catch (error) {
    throw mcpFailure(context.sdk, error);
  }
}
