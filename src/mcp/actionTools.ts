import type { McpContext } from './McpContext';

/**
 * The operator's tools: `signal`, `approve`, `retry`, `cancel`, `fork` and `replay`. Each
 * answers with the run's task (task id = run id) after the action, or what the action made.
 */
export function registerActionTools(context: McpContext): void {
  const { z } = context.sdk;
  const { actions, tasks } = context;
  const runId = z.string().min(1);
  context.tool(
    'signal',
    'Send a signal to a run: `name` (default: the signal the run waits for) and an optional JSON `payload`.',
    z.strictObject({ runId, name: z.string().min(1).optional(), payload: z.unknown().optional() }),
    async (args) => {
      const signal = await actions.signal(args.runId, args.name, args.payload);
      return { signal, task: await tasks.task(args.runId) };
    },
  );
  context.tool(
    'approve',
    'Approve (or, with approved: false, deny) what a run waits for: the tool call `toolCallId`, ' +
      'else the approval it waits for. Pass waitSeq and digest as `list` shows them to refuse a changed request.',
    z.strictObject({
      runId,
      toolCallId: z.string().min(1).optional(),
      approved: z.boolean().default(true),
      reason: z.string().optional(),
      waitSeq: z.number().int().min(0).optional(),
      digest: z.string().optional(),
    }),
    async (args) => {
      const signal = await actions.approve(args);
      return { signal, approved: args.approved, task: await tasks.task(args.runId) };
    },
  );
  context.tool(
    'retry',
    'Retry a failed or needs_attention run from its failed step (a worker executes it).',
    z.strictObject({ runId }),
    async (args) => {
      await actions.retry(args.runId);
      return { task: await tasks.task(args.runId) };
    },
  );
  context.tool(
    'cancel',
    'Cancel a run that has not ended, and the child runs under it.',
    z.strictObject({ runId, reason: z.string().optional() }),
    async (args) => {
      await actions.cancel(args.runId, args.reason);
      return { task: await tasks.task(args.runId) };
    },
  );
  context.tool(
    'fork',
    'Fork a run: a new run with the history before `fromSeq` copied, continued by a worker.',
    z.strictObject({ runId, fromSeq: z.number().int().min(0), newRunId: z.string().optional() }),
    async (args) => {
      const forked = await actions.fork(args.runId, args.fromSeq, args.newRunId);
      return { task: await tasks.task(forked) };
    },
  );
  context.tool(
    'replay',
    "Replay a run from step `from` on this server's workflow code (`waymark mcp --module`), " +
      "with `override` (seq → result) standing in for steps' results; reports what changed.",
    z.strictObject({
      runId,
      from: z.number().int().min(0),
      override: z.record(z.string().regex(/^\d+$/), z.unknown()).optional(),
    }),
    async (args) => {
      const override = args.override === undefined ? undefined : bySeq(args.override);
      const report = await actions.replay(args.runId, args.from, override);
      return { report };
    },
  );
}

function bySeq(override: Record<string, unknown>): Record<number, unknown> {
  return Object.fromEntries(Object.entries(override).map(([seq, value]) => [Number(seq), value]));
}
