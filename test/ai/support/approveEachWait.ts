import type { RunHandle } from 'waymark';
import type { TestRuntime } from 'waymark/testing';

/** The fake model's turn 0 of the parallel-approval tests: two refunds that both need approval. */
export const TWO_REFUNDS = {
  kind: 'tools',
  calls: [
    { id: 'call_r1', name: 'refund', arguments: { orderId: '1', amount: 150 } },
    { id: 'call_r2', name: 'refund', arguments: { orderId: '2', amount: 250 } },
  ],
} as const;

/**
 * Approves, `count` times, whatever the run waits for once it waits again; returns what it
 * waited for each time, in order. The run must be started (not awaited) before: its
 * `result()` is taken here at once, which resumes it in this process each time it is due.
 */
export async function approveEachWait<T>(
  runtime: TestRuntime,
  start: () => Promise<RunHandle<T>>,
  count: number,
): Promise<{ asked: string[]; result: T }> {
  const nextWait = (): Promise<void> =>
    new Promise((resolve) => {
      const listening = runtime.on('run.waiting', () => {
        listening.dispose();
        resolve();
      });
    });
  let waiting = nextWait();
  const handle = await start();
  const result = handle.result();
  const asked: string[] = [];
  for (let i = 0; i < count; i++) {
    await waiting;
    const waitingFor = String((await handle.describe()).waitingFor);
    asked.push(waitingFor);
    waiting = nextWait();
    await runtime.signal(handle.runId, waitingFor.replace(/^signal:/, ''), { approved: true });
  }
  return { asked, result: await result };
}
