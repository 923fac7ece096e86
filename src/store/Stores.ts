import type { EntityManager } from 'typeorm';
import type { Lifecycle } from '../ground/Lifecycle';
import type { Database, TransactionOptions } from './connection/Database';
import { FlowStats } from './FlowStats';
import {
  GroupCommit,
  type GroupCommitBounds,
  type GroupCommitLanes,
  type GroupedWrites,
} from './GroupCommit';
import { FinishBatches } from './FinishBatches';
import { KeyStore } from './KeyStore';
import { Leases } from './Leases';
import { LimiterSlots } from './LimiterSlots';
import { NamedQueueClaims } from './NamedQueueClaims';
import { QueueAdmission } from './QueueAdmission';
import { RunCancellation } from './RunCancellation';
import { RunClaims } from './RunClaims';
import { RunControl } from './RunControl';
import { RunPruner } from './RunPruner';
import { RunQueries } from './RunQueries';
import { RunValueReads } from './RunValueReads';
import { StoredErrors, type DecodeValue } from './StoredErrors';
import { RunStore } from './RunStore';
import { ScheduleStore } from './ScheduleStore';
import { SignalStore, type SignalRule } from './SignalStore';
import { StartBatches } from './StartBatches';
import { StepBatches } from './StepBatches';
import { StreamStore } from './StreamStore';

/**
 * Commits of checkpoints in flight at once on a server database: two connections, so half the
 * steps' JavaScript runs while the other half commits (at 64 concurrent runs about 1.2× the
 * steps per second on PostgreSQL and MariaDB; three or more lanes gained nothing), but only
 * for shares of 16 rows or more: 16 runs split in two lanes ran slower than in one
 * (bench/RESULTS.md). SQLite's writes block the thread: one lane.
 */
const SERVER_LANES: GroupCommitLanes = { count: 2, fewestRows: 16 };
const SQLITE_LANES: GroupCommitLanes = { count: 1, fewestRows: 1 };

/** What the repositories need beyond the database handle, given once by the runtime. */
export interface StoresSettings {
  /** Refuses operator actions (retry, resolve, cancel) once the runtime is closing. */
  readonly lifecycle: Lifecycle;
  /** Who this runtime is on a named lock (its lease process): the pruner's lease. */
  readonly holder: string;
  /** Reads a stored value back, for operators' queries (the codec's `decode`). */
  readonly decode: DecodeValue;
  /** What a signal must pass before it is stored (see {@link SignalRule}). */
  readonly admitSignal: SignalRule;
  /** The bounds of one group commit of checkpoints; null: each checkpoint commits alone. */
  readonly groupCommit: GroupCommitBounds | null;
}

/**
 * Every repository of one runtime, built once from its {@link Database}; the runtime asks
 * here instead of building a store where it needs one. {@link transaction} hands out the
 * same repositories bound to one transaction, so writes of several of them commit together.
 */
export class Stores {
  /** Runs, steps and attempts: the hot path's one write per step. */
  readonly runs: RunStore;
  /**
   * Where new runs, plain checkpoints and runs' endings are written: in group commits, or
   * alone (when group commit is off, and inside a transaction, whose rows commit with it).
   */
  readonly checkpoints: GroupedWrites;
  /** Claims and renewals of run leases. */
  readonly leases: Leases;
  /** Claims of runs no queue limit holds back; handing runs back; their statuses. */
  readonly runClaims: RunClaims;
  /** Claims from named queues under their limits. */
  readonly queueClaims: NamedQueueClaims;
  /** New runs admitted to a queue (with their dedupe keys). */
  readonly queueAdmission: QueueAdmission;
  /** Slots of named limiters. */
  readonly limiterSlots: LimiterSlots;
  /** Depths of queues and the state of limiters, for operators. */
  readonly flowStats: FlowStats;
  readonly signals: SignalStore;
  /** Global idempotency keys. */
  readonly keys: KeyStore;
  readonly streams: StreamStore;
  readonly schedules: ScheduleStore;
  readonly pruner: RunPruner;
  readonly cancellation: RunCancellation;
  /** Operator actions: retry, resolve, fork. */
  readonly control: RunControl;
  /** Operators' read-only queries: listing runs, reading a history. */
  readonly queries: RunQueries;
  /** A run's stored values, read cut or whole: its arguments, its outcome, a step's output. */
  readonly values: RunValueReads;

  constructor(
    readonly db: Database,
    private readonly settings: StoresSettings,
  ) {
    const { lifecycle } = settings;
    this.runs = new RunStore(db);
    this.checkpoints =
      settings.groupCommit && !db.inTransaction
        ? new GroupCommit(
            this.runs,
            {
              starts: new StartBatches(db, this.runs),
              steps: new StepBatches(db, this.runs),
              finishes: new FinishBatches(db),
            },
            settings.groupCommit,
            db.dialect === 'sqlite' ? SQLITE_LANES : SERVER_LANES,
          )
        : this.runs;
    this.leases = new Leases(db, this.runs);
    this.runClaims = new RunClaims(db);
    this.queueClaims = new NamedQueueClaims(db);
    this.queueAdmission = new QueueAdmission(db);
    this.limiterSlots = new LimiterSlots(db);
    this.flowStats = new FlowStats(db);
    this.signals = new SignalStore(db, settings.admitSignal);
    this.keys = new KeyStore(db);
    this.streams = new StreamStore(db);
    this.schedules = new ScheduleStore(db);
    this.pruner = new RunPruner(db, settings.holder);
    this.cancellation = new RunCancellation(db, lifecycle);
    this.control = new RunControl(db, lifecycle);
    const errors = new StoredErrors(settings.decode);
    this.queries = new RunQueries(db, this.runs, errors);
    this.values = new RunValueReads(db, errors);
  }

  /**
   * Runs `work` in one database transaction, given these repositories bound to it (and the
   * transaction's EntityManager, for a transactional step's own writes); see
   * {@link Database.transaction} for the options.
   */
  transaction<T>(
    operation: string,
    work: (tx: Stores, manager: EntityManager) => Promise<T>,
    options: TransactionOptions<T> = {},
  ): Promise<T> {
    return this.db.transaction(
      operation,
      (tx, manager) => work(new Stores(tx, this.settings), manager),
      options,
    );
  }
}
