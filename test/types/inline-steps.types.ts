/**
 * Compile-time contract of `ctx.step`: every `@ts-expect-error` below must be an error, and
 * everything else must compile. Checked by `tsc` in `npm test`; never run.
 */
import { StepInterceptor, WorkflowContext, type StepInfo } from 'waymark';

const ctx = new WorkflowContext();

export async function compiles(): Promise<void> {
  const sources: string[] = await ctx.step('search', async () => ['a', 'b']);
  const at: Date = await ctx.step('when', async () => new Date(), { timeout: '30s' });
  await ctx.step('pay', async () => ({ id: 'ch_1' }), {
    atMostOnce: true,
    onUnknown: 'intervene',
    retry: { maxAttempts: 3, backoff: { fixed: '1s' } },
  });
  await ctx.step('invoice', async () => 1, { key: 'invoice-2026-12', scope: 'global' });
  void sources;
  void at;
}

export async function doesNotCompile(): Promise<void> {
  // @ts-expect-error: a function cannot be stored as a step's result
  await ctx.step('handler', async () => () => 1);
  // @ts-expect-error: '3 days' is not a Duration
  await ctx.step('wait', async () => 1, { timeout: '3 days' });
  // @ts-expect-error: scope is 'run' or 'global'
  await ctx.step('bill', async () => 1, { key: 'k', scope: 'everywhere' });
}

export class Tracing extends StepInterceptor {
  override intercept(step: StepInfo, next: () => Promise<unknown>): Promise<unknown> {
    const kind: 'method' | 'inline' = step.kind;
    void kind;
    return next();
  }
}
