import { IdempotencyConflictError } from '../errors/IdempotencyConflictError';
import type { KeyRow } from '../store/RunStore';
import type { RuntimeKernel } from './RuntimeKernel';

/** What claiming a global key found: it is ours to execute, or it completed elsewhere. */
export type KeyClaim =
  { readonly owned: true } | { readonly owned: false; readonly output: string };

const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 500;

/**
 * Claims global idempotency keys (`@Idempotent({ scope: 'global' })`): the first run to
 * claim a key executes the step; a run finding it completed takes the stored result; a run
 * finding it in use by another live run waits, up to `idempotencyWait`; a key left by a run
 * that can no longer finish it is taken over.
 */
export class GlobalKeyClaims {
  constructor(private readonly kernel: RuntimeKernel) {}

  async claim(key: string, runId: string, seq: number): Promise<KeyClaim> {
    const { store, clock, idempotencyWaitMs, lifecycle } = this.kernel;
    const started = Date.now();
    for (let delay = FIRST_POLL_MS; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
      if (await store.insertKey(key, runId, seq, clock.now())) return { owned: true };
      const held = await store.loadKey(key);
      if (!held) continue;
      if (held.status === 'completed') return { owned: false, output: held.output ?? '' };
      if (held.runId === runId && held.seq === seq) return { owned: true };
      const finished = await this.finishedBy(held);
      if (finished) return finished;
      if (await this.holderIsGone(held)) {
        if (await store.takeOverKey(held, runId, seq, clock.now())) return { owned: true };
        continue;
      }
      if (Date.now() - started >= idempotencyWaitMs) {
        throw new IdempotencyConflictError(key, held.runId, idempotencyWaitMs);
      }
      lifecycle.assertAlive(`wait for idempotency key "${key}"`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  /** The holder recorded the step's result but died before marking the key. */
  private async finishedBy(held: KeyRow): Promise<KeyClaim | undefined> {
    const step = await this.kernel.store.loadStep(held.runId, held.seq);
    if (step?.status === 'completed') return { owned: false, output: step.output ?? '' };
    return undefined;
  }

  /** A holder that ended, or whose process stopped renewing its claim, cannot finish the key. */
  private async holderIsGone(held: KeyRow): Promise<boolean> {
    const run = await this.kernel.store.loadRun(held.runId);
    if (!run) return true;
    if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled')
      return true;
    return (
      run.status === 'running' &&
      run.leaseExpiresAt !== null &&
      run.leaseExpiresAt < this.kernel.clock.now()
    );
  }
}
