import type { DependencyContainer } from 'tsyringe';
import type { DataSource } from 'typeorm';
import type { Codec } from '../codec/Codec';
import type { Clock } from '../ground/Clock';
import type { Lifecycle } from '../ground/Lifecycle';
import type { RunQueries } from '../store/RunQueries';
import type { RunStore } from '../store/RunStore';
import type { Stores } from '../store/Stores';
import type { FlowRegistry } from './execution/FlowRegistry';
import type { OperatorActions } from './OperatorActions';
import type { Runs } from './Runs';
import type { RuntimeEvents } from './execution/RuntimeEvents';
import type { InstanceResolver } from './RuntimeOptions';
import type { WorkflowEntry } from './RuntimeRegistry';
import type { Shutdown } from './Shutdown';
import type { Streams } from './streams/Streams';
import type { TimeParts } from './timeParts';
import type { WorkerDeps } from './Worker';

/** What a runtime is made of, assembled by `Waymark.create()` (internal: no entry exports it). */
export interface RuntimeParts {
  readonly workerId: string;
  readonly container: DependencyContainer;
  readonly dataSource: DataSource;
  readonly store: RunStore;
  /** Every repository, built once. */
  readonly stores: Stores;
  readonly queries: RunQueries;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly events: RuntimeEvents;
  readonly lifecycle: Lifecycle;
  readonly resolveInstance: InstanceResolver;
  readonly runs: Runs;
  readonly streams: Streams;
  readonly operator: OperatorActions;
  readonly workerDeps: WorkerDeps;
  readonly entry: WorkflowEntry;
  readonly shutdown: Shutdown;
  /** The named queues and limiters declared in this runtime. */
  readonly flows: FlowRegistry;
  /** Schedules, deadlines and cancellation, retention. */
  readonly time: TimeParts;
  /** Releases what the runtime opened (its DataSource, if waymark created it). */
  readonly release: () => Promise<void>;
}
