import { ConsoleApi } from '../console/ConsoleApi';
import { RUN_STATUSES } from '../model/RunStatus';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import type { McpContext } from './McpContext';

/**
 * The viewer's tools, answered as the console's API answers (values cut at 1,000
 * characters): `list` (a page of runs, an approval's tool and proposed arguments with the
 * run waiting for it) and `show` (one run, a page of its steps, its outcome once ended).
 */
export function registerReadTools(context: McpContext, runtime: WaymarkRuntime): void {
  const { z } = context.sdk;
  const api = new ConsoleApi(runtime);
  const status = z.enum(RUN_STATUSES as [string, ...string[]]);
  context.tool(
    'list',
    'List runs, newest first. A run waiting for a tool approval carries `approval` (tool, input, digest, waitSeq).',
    z.strictObject({
      status: z.union([status, z.array(status)]).optional(),
      workflow: z.string().optional(),
      waitingFor: z.enum(['signal', 'sleep', 'retry']).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
      cursor: z.string().optional(),
    }),
    async (args) => {
      const query = new URLSearchParams();
      const statuses = args.status === undefined ? [] : [args.status].flat();
      if (statuses.length > 0) query.set('status', statuses.join(','));
      if (args.workflow !== undefined) query.set('workflow', args.workflow);
      if (args.waitingFor !== undefined) query.set('waitingFor', args.waitingFor);
      if (args.limit !== undefined) query.set('limit', String(args.limit));
      if (args.cursor !== undefined) query.set('cursor', args.cursor);
      const page = await api.list(query);
      return { ...page };
    },
  );
  context.tool(
    'show',
    'Show one run: its status, arguments, a page of its step history (from seq `from`, at most `limit` steps) and, once it ended, its result or error.',
    z.strictObject({
      runId: z.string().min(1),
      from: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(1000).optional(),
    }),
    async ({ runId, from, limit }) => {
      const query = new URLSearchParams();
      if (from !== undefined) query.set('from', String(from));
      if (limit !== undefined) query.set('limit', String(limit));
      const detail = await api.show(runId, query);
      return { ...detail };
    },
  );
}
