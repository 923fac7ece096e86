import type { Codec } from '../../codec/Codec';
import type { Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { Logger } from '../../ground/Logger';
import type { LeaseHolder } from '../../ground/ProcessIdentity';
import type { StepHooks } from '../../model/StepHooks';
import type { RunRow } from '../../store/rows';
import type { Stores } from '../../store/Stores';
import type { Streams } from '../streams/Streams';
import { buildOperations } from './buildOperations';
import { Claims } from './Claims';
import { Executions } from './Executions';
import { FlowRegistry } from './FlowRegistry';
import { HeldRunNotices } from './HeldRunNotices';
import { LimiterGate } from './LimiterGate';
import { RunAcquirer } from './RunAcquirer';
import { RunExecution } from './RunExecution';
import { RunObserver } from './RunObserver';
import type { RunOperations } from './RunScope';
import { ReplaySources } from './ReplaySources';
import { RunStarter } from './RunStarter';
import { RunWaiters } from './RunWaiters';
import type { RuntimeEvents } from './RuntimeEvents';
import type { BodyInvoker } from './StepPath';
import { StoredCalls, type ResolveInstance } from './StoredCalls';

/** What the execution floor is built on: the stores, and the settings it reads. */
export interface ExecutionSettings {
  readonly stores: Stores;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  readonly self: LeaseHolder;
  readonly leaseMs: number;
  readonly durableDelayMs: number;
  readonly idempotencyWaitMs: number;
  readonly hooks: StepHooks;
  readonly invoker: BodyInvoker;
  readonly sharesApplicationDataSource: boolean;
  /** The runtime's events, made before the stores (which tell of retries through them). */
  readonly events: RuntimeEvents;
  readonly resolveInstance: ResolveInstance;
}

/** The execution floor, as the runtime floor above it uses it. */
export interface ExecutionFloor {
  readonly events: RuntimeEvents;
  readonly flows: FlowRegistry;
  readonly claims: Claims;
  readonly executions: Executions;
  readonly acquirer: RunAcquirer;
  readonly starter: RunStarter;
  readonly waiters: RunWaiters;
  readonly observer: RunObserver;
  readonly calls: StoredCalls;
  readonly operations: RunOperations;
  readonly streams: Streams;
  readonly replaySources: ReplaySources;
}

const ENDS = ['run.completed', 'run.failed', 'run.cancelled', 'run.needs_attention'] as const;

/**
 * Builds the execution floor in dependency order, each part given the few things it uses:
 * claims → the registry of executions (over the executor and the watcher) → acquiring,
 * starting and awaiting runs → what workflow code does (child runs start through the same
 * registry, with the operations of the run that calls them).
 */
export function assembleExecution(s: ExecutionSettings): ExecutionFloor {
  const { stores, codec, clock, logger, lifecycle, self, leaseMs } = s;
  const { runs: store, runClaims: queue } = stores;
  const { events } = s;
  const flows = new FlowRegistry();
  const limiters = new LimiterGate({
    slots: stores.limiterSlots,
    ...{ flows, clock, lifecycle, events, logger, leaseMs },
  });
  const claims = new Claims({
    ...{ queue, leases: stores.leases, queues: stores.queueClaims },
    ...{ self, leaseMs, clock, events },
  });
  const observer = new RunObserver(store, codec, clock, lifecycle, self);
  const execution = new RunExecution({
    ...{ store, queue, codec, clock, events, lifecycle, logger },
    finishes: stores.checkpoints,
  });
  const executions = new Executions(execution, observer);
  const calls = new StoredCalls(codec, s.resolveInstance);
  const notices = new HeldRunNotices(logger, clock);
  const onHeld = (row: RunRow) => notices.heldElsewhere(row);
  const acquirer = new RunAcquirer({
    ...{ store, claims, codec, clock, self, onHeld },
    starts: stores.checkpoints,
  });
  const starter = new RunStarter({
    ...{ store, codec, clock, lifecycle, executions, acquirer, flows },
    admission: stores.queueAdmission,
  });
  const waiters = new RunWaiters({ store, clock, lifecycle, executions, acquirer, calls });
  const replaySources = new ReplaySources(store, codec);
  const operations = buildOperations({
    ...{ stores, codec, clock, events, lifecycle, self, limiters, executions },
    ...{ starter, waiters, hooks: s.hooks, invoker: s.invoker },
    durableDelayMs: s.durableDelayMs,
    idempotencyWaitMs: s.idempotencyWaitMs,
    sharesApplicationDataSource: s.sharesApplicationDataSource,
    replaySources,
  });
  const { streams } = operations;
  for (const end of ENDS) events.on(end, ({ runId }) => streams.runEnded(runId));
  return {
    ...{ events, flows, claims, executions, acquirer, starter, waiters, observer, calls },
    ...{ operations, streams, replaySources },
  };
}
