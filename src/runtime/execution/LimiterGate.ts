import { randomBytes } from 'node:crypto';
import { sleepUnless, type Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { Logger } from '../../ground/Logger';
import { isRateLimitedError } from '../../policies/RateLimited';
import { readRetryAfter } from '../../policies/RetryAfter';
import type { LimiterSlots } from '../../store/LimiterSlots';
import type { RuntimeEvents } from './RuntimeEvents';
import type { FlowRegistry } from './FlowRegistry';
import type { Settled } from './invokeAttempt';

/** What the gate uses. */
export interface LimiterGateDeps {
  readonly slots: LimiterSlots;
  readonly flows: FlowRegistry;
  readonly clock: Clock;
  readonly lifecycle: Lifecycle;
  readonly events: RuntimeEvents;
  readonly logger: Logger;
  /** How long a slot lasts unrenewed (a process that dies holding one frees it then). */
  readonly leaseMs: number;
}

/** Which attempt passes the gate. */
export interface GatedAttempt {
  readonly limiter: string;
  readonly runId: string;
  readonly step: string;
  readonly cancellation: AbortSignal;
}

/**
 * Puts each attempt of a `@Step({ limiter })` through its named limiter: waits for a slot
 * (not paused, under its concurrency and rate, counted in the database across every worker),
 * holds it — renewed — while the attempt runs, and releases it after. An attempt answered
 * with HTTP 429 and a Retry-After stores a pause on the limiter, so every step under it, in
 * every worker, waits until then instead of calling again.
 */
export class LimiterGate {
  constructor(private readonly deps: LimiterGateDeps) {}

  async around(gated: GatedAttempt, attempt: () => Promise<Settled>): Promise<Settled> {
    const { slots, clock, leaseMs } = this.deps;
    const limiter = this.deps.flows.limiter(gated.limiter, `@Step "${gated.step}": limiter`);
    const id = randomBytes(12).toString('hex');
    for (;;) {
      const now = clock.now();
      const slot = { id, runId: gated.runId, now, leaseMs };
      const answer = await slots.take(limiter, slot);
      if (answer.taken) break;
      const jitter = Math.floor(Math.random() * 20);
      await sleepUnless(
        clock,
        Math.max(1, answer.retryAt - clock.now()) + jitter,
        this.deps.lifecycle.signal,
        gated.cancellation,
      );
    }
    const renewal = setInterval(
      () => {
        slots.renew([id], leaseMs).catch((error: unknown) => {
          this.deps.logger.warn(`could not renew a slot of limiter "${limiter.name}"`, { error });
        });
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    renewal.unref();
    try {
      const settled = await attempt();
      if (!settled.ok) await this.pauseIfLimited(limiter.name, gated, settled.error);
      return settled;
    } finally {
      clearInterval(renewal);
      await slots.release(id, clock.now());
    }
  }

  /** A 429 with a Retry-After pauses the limiter for everyone until then. */
  private async pauseIfLimited(name: string, gated: GatedAttempt, error: unknown): Promise<void> {
    if (!isRateLimitedError(error)) return;
    const now = this.deps.clock.now();
    const hint = readRetryAfter(error, now);
    if (hint === undefined || hint <= 0) return;
    const until = now + hint;
    await this.deps.slots.pause(name, until, now);
    this.deps.events.emit('limiter.paused', {
      limiter: name,
      until,
      runId: gated.runId,
      step: gated.step,
    });
  }
}
