import { RunNotFoundError } from '../errors/RunNotFoundError';
import { isTerminalStatus } from '../store/RunStatus';
import type { RunOutcome } from './RunOutcome';
import type { RuntimeKernel } from './RuntimeKernel';

const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 1000;

/**
 * Polls the store until a run that another process executes reaches a terminal status.
 * Uses real timers: the wait is for another process, not for workflow time.
 */
export async function waitForStoredOutcome(
  kernel: RuntimeKernel,
  runId: string,
): Promise<RunOutcome> {
  const { store, codec, lifecycle } = kernel;
  for (let delay = FIRST_POLL_MS; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
    lifecycle.assertAlive(`wait for run "${runId}"`);
    const row = await store.loadRun(runId);
    if (!row) throw new RunNotFoundError(runId);
    if (row.status === 'completed') {
      return {
        status: 'completed',
        result: codec.decode(row.result ?? '', `run "${runId}" result`),
      };
    }
    if (isTerminalStatus(row.status)) {
      return {
        status: row.status as 'failed' | 'cancelled',
        error: codec.decode(row.error ?? '', `run "${runId}" error`),
      };
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
