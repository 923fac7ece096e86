import type { LimiterOptions, QueueOptions } from '../policies/FlowLimits';
import type { Clock } from '../ground/Clock';
import type { FlowStats, LimiterStats, QueueStats } from '../store/FlowStats';
import type { FlowRegistry } from './execution/FlowRegistry';

export type { LimiterStats, QueueStats, QueuedRunView } from '../store/FlowStats';

/**
 * The runtime's named queues and limiters: declared in code, enforced through the database
 * across every worker process (see "Queues and limiters" in the README). `WaymarkRuntime`
 * delegates its `queue`, `limiter`, `queueStats` and `limiterStats` here.
 */
export class FlowControls {
  constructor(
    private readonly flows: FlowRegistry,
    private readonly stats: FlowStats,
    private readonly clock: Clock,
  ) {}

  /**
   * Declares a named queue. Runs of `@Workflow({ queue: name })`, or started with
   * `start(…, { queue: name })`, wait in it until a worker claims them within its limits.
   * Every process that starts or executes its runs declares it, with the same options.
   *
   * @example
   * ```ts
   * runtime.queue('research', {
   *   concurrency: 3,
   *   rateLimit: { limit: 10, period: '1s' },
   *   partitionBy: (req: ResearchRequest) => req.tenantId,
   *   perKeyConcurrency: 1,
   * });
   * ```
   */
  queue(name: string, options: QueueOptions = {}): void {
    this.flows.declareQueue(name, options);
  }

  /**
   * Declares a named limiter that `@Step({ limiter: name })` attempts pass through: its
   * concurrency and rate hold across every worker, and an attempt answered with HTTP 429 and
   * a Retry-After pauses every step under it, in every worker, until then.
   *
   * @example
   * ```ts
   * runtime.limiter('openai', { concurrency: 8, rateLimit: { limit: 500, period: '1m' } });
   * ```
   */
  limiter(name: string, options: LimiterOptions = {}): void {
    this.flows.declareLimiter(name, options);
  }

  /** Every queue's depth and executing runs (`''` is the default queue), as stored now. */
  queueStats(): Promise<QueueStats[]> {
    return this.stats.queues();
  }

  /** Every limiter's held slots and stored pause. */
  limiterStats(): Promise<LimiterStats[]> {
    return this.stats.limiters(this.clock.now());
  }
}
