import { InvalidArgumentError } from '../../errors/InvalidArgumentError';
import {
  resolveLimiter,
  resolveQueue,
  type LimiterOptions,
  type QueueOptions,
  type ResolvedLimiter,
  type ResolvedQueue,
} from '../../policies/FlowLimits';

/**
 * The named queues and limiters declared in this runtime (`runtime.queue`, `runtime.limiter`).
 * Declaring only describes the limits; they are enforced through the database, so every
 * process that starts or executes runs of a queue declares it with the same options.
 */
export class FlowRegistry {
  private readonly queues = new Map<string, ResolvedQueue>();
  private readonly limiters = new Map<string, ResolvedLimiter>();

  declareQueue(name: string, options?: QueueOptions): ResolvedQueue {
    const queue = resolveQueue(name, options);
    this.queues.set(name, queue);
    return queue;
  }

  declareLimiter(name: string, options?: LimiterOptions): ResolvedLimiter {
    const limiter = resolveLimiter(name, options);
    this.limiters.set(name, limiter);
    return limiter;
  }

  /** The queue named `name`, or an `InvalidArgumentError` naming `where` and the queue. */
  queue(name: string, where: string): ResolvedQueue {
    const queue = this.queues.get(name);
    if (!queue) {
      throw new InvalidArgumentError(
        where,
        `names queue "${name}", which this runtime does not know; declare it with runtime.queue("${name}", { … }) ` +
          `(known: ${list(this.queues)})`,
      );
    }
    return queue;
  }

  /** The limiter named `name`, or an `InvalidArgumentError` naming `where` and the limiter. */
  limiter(name: string, where: string): ResolvedLimiter {
    const limiter = this.limiters.get(name);
    if (!limiter) {
      throw new InvalidArgumentError(
        where,
        `names limiter "${name}", which this runtime does not know; declare it with runtime.limiter("${name}", { … }) ` +
          `(known: ${list(this.limiters)})`,
      );
    }
    return limiter;
  }

  /** Every declared queue. */
  allQueues(): ResolvedQueue[] {
    return [...this.queues.values()];
  }
}

function list(map: Map<string, unknown>): string {
  return map.size === 0 ? 'none' : [...map.keys()].map((k) => `"${k}"`).join(', ');
}
