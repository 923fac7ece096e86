import { SimulatedCrash } from '../errors/SimulatedCrash';
import type { StepHookPoint } from '../model/StepHooks';

/** Where on a step's path a crash is simulated. */
export type CrashPoint = 'before' | 'afterEffect' | 'afterCommit';

/** Which calls of a step a crash rule applies to. */
export interface CrashOptions {
  /** How many crashes this rule causes, across restarts; default 1. */
  times?: number;
  /** Only the call with this sequence number. */
  seq?: number;
}

interface CrashRule {
  readonly point: CrashPoint;
  readonly target: string;
  readonly seq: number | undefined;
  remaining: number;
}

/**
 * Simulated crashes, by step and point. Shared by a test runtime and the runtimes its
 * `restart()` creates, so `{ times: 2 }` crashes twice across restarts.
 *
 * @example
 * ```ts
 * runtime.crash.afterEffect('PaymentAgent.charge'); // body ran, checkpoint lost
 * await expect(agent.checkout(order)).rejects.toThrow(SimulatedCrash);
 * const next = await runtime.restart();
 * ```
 */
export class CrashPlan {
  private readonly rules: CrashRule[] = [];

  /** Crash before the step's body runs. `step` is `'Class.method'` or the step name. */
  before(step: string, options?: CrashOptions): this {
    return this.add('before', step, options);
  }

  /** Crash after the body ran and before its checkpoint commits: the effect happened, the record did not. */
  afterEffect(step: string, options?: CrashOptions): this {
    return this.add('afterEffect', step, options);
  }

  /** Crash right after the step's checkpoint committed. */
  afterCommit(step: string, options?: CrashOptions): this {
    return this.add('afterCommit', step, options);
  }

  /** Removes every rule. */
  clear(): void {
    this.rules.length = 0;
  }

  /** How many crashes the rules still hold. */
  get pending(): number {
    return this.rules.reduce((sum, rule) => sum + rule.remaining, 0);
  }

  /** @internal The rule matching this point, consumed; undefined when none applies. */
  take(point: CrashPoint, at: StepHookPoint): SimulatedCrash | undefined {
    const rule = this.rules.find(
      (r) =>
        r.remaining > 0 &&
        r.point === point &&
        (r.target === at.target || r.target === at.step) &&
        (r.seq === undefined || r.seq === at.seq),
    );
    if (!rule) return undefined;
    rule.remaining--;
    return new SimulatedCrash(`${point} ${at.target} (run "${at.runId}", step #${at.seq})`);
  }

  private add(point: CrashPoint, target: string, options: CrashOptions = {}): this {
    const times = options.times ?? 1;
    if (typeof target !== 'string' || target.length === 0) {
      throw new TypeError(`crash.${point}(step): name the step as 'Class.method'`);
    }
    if (!Number.isInteger(times) || times < 1) {
      throw new TypeError(
        `crash.${point}('${target}'): times must be a positive integer, got ${String(times)}`,
      );
    }
    this.rules.push({ point, target, seq: options.seq, remaining: times });
    return this;
  }
}
