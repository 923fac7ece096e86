import type { Codec } from '../../codec/Codec';
import type { Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { RunStore } from '../../store/RunStore';
import type { RuntimeEvents } from './RuntimeEvents';
import type { StepHooks } from '../../model/StepHooks';

/** What the parts that wait inside a run (retries, timers, signals) share. */
export interface StepEnvironment {
  readonly store: RunStore;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly events: RuntimeEvents;
  readonly hooks: StepHooks;
  readonly lifecycle: Lifecycle;
  /** Waits longer than this release the run (`waiting`) instead of holding the process. */
  readonly durableDelayMs: number;
}
