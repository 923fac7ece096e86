import { IdempotencyConflictError } from '../../errors/IdempotencyConflictError';
import type { Clock } from '../../ground/Clock';
import { realClock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { LeaseHolder } from '../../ground/ProcessIdentity';
import type { KeyRow, KeyStore } from '../../store/KeyStore';
import { leaseLapsed } from '../../store/Leases';
import { isTerminalStatus } from '../../model/RunStatus';
import type { RunStore } from '../../store/RunStore';

/** What claiming a global key found: it is ours to execute, or it completed elsewhere. */
export type KeyClaim =
  { readonly owned: true } | { readonly owned: false; readonly output: string };

/** What key claims need to know about the runtime making them. */
export interface KeyClaimSettings {
  readonly self: LeaseHolder;
  /** How long to wait for a key another live run holds. */
  readonly waitMs: number;
}

const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 500;

/**
 * Claims global idempotency keys (`@Idempotent({ scope: 'global' })`): the first run to
 * claim a key executes the step; a run finding it completed takes the stored result; a run
 * finding it in use by another live run waits, up to `idempotencyWait`; a key left by a run
 * that can no longer finish it is taken over.
 */
export class GlobalKeyClaims {
  constructor(
    private readonly store: RunStore,
    private readonly keys: KeyStore,
    private readonly clock: Clock,
    private readonly lifecycle: Lifecycle,
    private readonly settings: KeyClaimSettings,
  ) {}

  async claim(key: string, runId: string, seq: number): Promise<KeyClaim> {
    const started = Date.now();
    for (let delay = FIRST_POLL_MS; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
      if (await this.keys.insert(key, runId, seq, this.clock.now())) return { owned: true };
      const held = await this.keys.load(key);
      if (!held) continue;
      if (held.status === 'completed') return { owned: false, output: held.output ?? '' };
      if (held.runId === runId && held.seq === seq) return { owned: true };
      const finished = await this.finishedBy(held);
      if (finished) return finished;
      if (await this.holderIsGone(held)) {
        if (await this.keys.takeOver(held, runId, seq, this.clock.now())) return { owned: true };
        continue;
      }
      if (Date.now() - started >= this.settings.waitMs) {
        throw new IdempotencyConflictError(key, held.runId, this.settings.waitMs);
      }
      this.lifecycle.assertAlive(`wait for idempotency key "${key}"`);
      await realClock.sleep(delay);
    }
  }

  /** The holder recorded the step's result but died before marking the key. */
  private async finishedBy(held: KeyRow): Promise<KeyClaim | undefined> {
    const step = await this.store.loadStep(held.runId, held.seq);
    if (step?.status === 'completed') return { owned: false, output: step.output ?? '' };
    return undefined;
  }

  /** A holder that ended, or whose process stopped, cannot finish the key. */
  private async holderIsGone(held: KeyRow): Promise<boolean> {
    const run = await this.store.loadRun(held.runId);
    if (!run || isTerminalStatus(run.status)) return true;
    return leaseLapsed(run, this.settings.self);
  }
}
