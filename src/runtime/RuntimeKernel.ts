import type { DependencyContainer } from 'tsyringe';
import type { Codec } from '../codec/Codec';
import type { RunControl } from '../store/RunControl';
import type { RunQueries } from '../store/RunQueries';
import type { WorkQueue } from '../store/WorkQueue';
import type { RunStore } from '../store/RunStore';
import type { Clock } from '../ground/Clock';
import type { Lifecycle } from '../ground/Lifecycle';
import type { Logger } from '../ground/Logger';
import type { OutcomeWaiter } from './OutcomeWaiter';
import type { RunExecutor } from './RunExecutor';
import type { RunLauncher } from './RunLauncher';
import type { RuntimeEvents } from './RuntimeEvents';
import type { StepHooks } from './StepHooks';
import type { StepInterceptor } from './StepInterceptor';

/** Gives the instance a resumed run's workflow method is called on. */
export type InstanceResolver = (Class: new (...args: any[]) => object) => object;

/** Injection token under which a runtime registers its {@link RuntimeKernel}. */
export const RUNTIME_KERNEL = Symbol.for('waymark:RuntimeKernel');

/**
 * The parts one runtime is made of, shared by its interceptor, launcher and executor.
 * Internal: users talk to `WaymarkRuntime` and `WorkflowContext`.
 */
export interface RuntimeKernel {
  readonly store: RunStore;
  readonly queries: RunQueries;
  readonly control: RunControl;
  readonly queue: WorkQueue;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly events: RuntimeEvents;
  readonly hooks: StepHooks;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  readonly workerId: string;
  readonly leaseMs: number;
  /** Waits longer than this release the run (`waiting`) instead of holding the process. */
  readonly durableDelayMs: number;
  /** How long a step waits for a global idempotency key another live run holds. */
  readonly idempotencyWaitMs: number;
  /** True when runs are stored in the application's own DataSource (transactional steps need it). */
  readonly sharesApplicationDataSource: boolean;
  /** When this runtime started: runs created earlier by others are recoverable. */
  readonly startedAt: number;
  /** The container the runtime registers itself in. */
  readonly container: DependencyContainer;
  /** Gives the instance of a workflow class to run (tsyringe by default; Nest's in `waymark/nest`). */
  readonly resolveInstance: InstanceResolver;
  readonly interceptor: StepInterceptor;
  readonly launcher: RunLauncher;
  readonly waiter: OutcomeWaiter;
  readonly executor: RunExecutor;
}
