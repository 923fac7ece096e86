import type { DataSource } from 'typeorm';
import type { Lifecycle } from '../ground/Lifecycle';
import type { Logger } from '../ground/Logger';
import { FlowStats } from '../store/FlowStats';
import { guardPostgresPool } from '../store/guardPostgresPool';
import { Leases } from '../store/Leases';
import { LimiterSlots } from '../store/LimiterSlots';
import { QueueStore } from '../store/QueueStore';
import { RunCancellation } from '../store/RunCancellation';
import { RunControl } from '../store/RunControl';
import { RunPruner } from '../store/RunPruner';
import { RunStore } from '../store/RunStore';
import { ScheduleStore } from '../store/ScheduleStore';
import { SignalStore } from '../store/SignalStore';
import { StoreConnection } from '../store/StoreConnection';
import { WorkQueue } from '../store/WorkQueue';

/** Every store a runtime uses, each made once on its one connection. */
export interface RuntimeStores {
  readonly store: RunStore;
  readonly leases: Leases;
  readonly queue: WorkQueue;
  readonly queues: QueueStore;
  readonly limiterSlots: LimiterSlots;
  readonly signals: SignalStore;
  readonly control: RunControl;
  readonly cancellation: RunCancellation;
  readonly schedules: ScheduleStore;
  readonly pruner: RunPruner;
  readonly flowStats: FlowStats;
}

/** What the stores are opened on. */
export interface StoreSettings {
  readonly dataSource: DataSource;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  readonly storeRetryMs: number;
  /** Who this runtime is on a lock (its lease process). */
  readonly holder: string;
}

/** The first floor of a runtime: its connection and the stores on it. */
export function assembleStores(s: StoreSettings): RuntimeStores {
  guardPostgresPool(s.dataSource, s.logger);
  const connection = new StoreConnection(s.dataSource, s.lifecycle, {
    timeoutMs: s.storeRetryMs,
  });
  const store = new RunStore(connection);
  return {
    store,
    leases: new Leases(store),
    queue: new WorkQueue(store),
    queues: new QueueStore(store),
    limiterSlots: new LimiterSlots(store),
    signals: new SignalStore(store),
    control: new RunControl(connection, s.lifecycle),
    cancellation: new RunCancellation(connection, s.lifecycle),
    schedules: new ScheduleStore(store),
    pruner: new RunPruner(store, s.holder),
    flowStats: new FlowStats(store),
  };
}
