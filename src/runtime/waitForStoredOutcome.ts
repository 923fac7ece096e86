import { RunNotFoundError } from '../errors/RunNotFoundError';
import type { RunRow } from '../store/rows';
import { isTerminalStatus } from '../store/RunStatus';
import type { RunOutcome } from './RunOutcome';
import type { RuntimeKernel } from './RuntimeKernel';

const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 1000;

/**
 * Polls the store until a run that another process executes ends, or is released to
 * `waiting` (the caller may then resume it when due). A run parked in `needs_attention`
 * elsewhere is waited for: an operator may still resolve it. Uses real timers: the wait
 * is for another process, not for workflow time.
 */
export async function waitForStoredOutcome(
  kernel: RuntimeKernel,
  runId: string,
): Promise<RunOutcome> {
  const { store, lifecycle } = kernel;
  for (let delay = FIRST_POLL_MS; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
    lifecycle.assertAlive(`wait for run "${runId}"`);
    const row = await store.loadRun(runId);
    if (!row) throw new RunNotFoundError(runId);
    if (isTerminalStatus(row.status)) return storedOutcome(kernel, row);
    if (row.status === 'waiting') return { status: 'waiting', wakeAt: row.wakeAt };
    // Its process stopped renewing the lease: due now, for whoever waits to resume it.
    if (
      row.status === 'running' &&
      row.leaseExpiresAt !== null &&
      row.leaseExpiresAt < kernel.clock.now()
    ) {
      return { status: 'waiting', wakeAt: kernel.clock.now() };
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** The outcome a stored run records (terminal, parked, or waiting until a time). */
export function storedOutcome(kernel: RuntimeKernel, row: RunRow): RunOutcome {
  const { codec } = kernel;
  if (row.status === 'completed') {
    return {
      status: 'completed',
      result: codec.decode(row.result ?? '', `run "${row.id}" result`),
    };
  }
  if (row.status === 'waiting') return { status: 'waiting', wakeAt: row.wakeAt };
  return {
    status: row.status as 'failed' | 'cancelled' | 'needs_attention',
    error: codec.decode(row.error ?? '', `run "${row.id}" error`),
  };
}
