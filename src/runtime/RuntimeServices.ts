import type { DependencyContainer } from 'tsyringe';
import type { DataSource } from 'typeorm';
import type { AbandonedRunsNotice } from './AbandonedRunsNotice';
import type { RuntimeEvents } from './execution/RuntimeEvents';
import type { FlowControls } from './FlowControls';
import type { OperatorActions } from './OperatorActions';
import type { Replays } from './Replays';
import type { RunReads } from './RunReads';
import type { Runs } from './Runs';
import type { Shutdown } from './Shutdown';
import type { StreamTokens } from './streams/StreamTokens';
import type { TimeControls } from './TimeControls';
import type { Workers } from './Workers';

/** Who a runtime is: its identity in run ownership, its container and its database. */
export interface RuntimeIdentity {
  readonly workerId: string;
  readonly container: DependencyContainer;
  readonly dataSource: DataSource;
}

/**
 * The named services `WaymarkRuntime` delegates to, each built once by
 * `Waymark.create()`: runs (start, recover, signal), reads (lists, histories, streams,
 * handles), operator actions (retry, resolve, fork, cancel), replays, time (schedules, retention),
 * flows (queues, limiters), workers, events, shutdown, the notice of runs left running, and
 * stream tokens.
 */
export interface RuntimeServices {
  readonly identity: RuntimeIdentity;
  readonly runs: Runs;
  readonly reads: RunReads;
  readonly operator: OperatorActions;
  readonly replays: Replays;
  readonly time: TimeControls;
  readonly flows: FlowControls;
  readonly workers: Workers;
  readonly events: RuntimeEvents;
  readonly shutdown: Shutdown;
  readonly abandonedRuns: AbandonedRunsNotice;
  readonly streamTokens: StreamTokens;
}
