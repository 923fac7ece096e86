import type { Codec } from '../../codec/Codec';
import type { Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { LeaseHolder } from '../../ground/ProcessIdentity';
import type { Stores } from '../../store/Stores';
import { Streams } from '../streams/Streams';
import type { RuntimeEvents } from './RuntimeEvents';
import { ChildRuns } from './ChildRuns';
import type { Executions } from './Executions';
import type { RunStarter } from './RunStarter';
import type { RunWaiters } from './RunWaiters';
import { DurableWaits } from './DurableWaits';
import { GlobalKeyClaims } from './GlobalKeyClaims';
import { HandOver } from './HandOver';
import type { LimiterGate } from './LimiterGate';
import type { ReplaySources } from './ReplaySources';
import { RecordedValues } from './RecordedValues';
import { StepAttempts } from './StepAttempts';
import type { StepHooks } from '../../model/StepHooks';
import { StepOutcomes } from './StepOutcomes';
import { StepPath, type BodyInvoker } from './StepPath';
import { StepRecords } from './StepRecords';
import { StepReplay } from './StepReplay';
import { WorkflowOperations } from './WorkflowOperations';
import { AtMostOnceWriter } from './writers/AtMostOnceWriter';
import { GlobalKeyWriter } from './writers/GlobalKeyWriter';
import { PlainWriter } from './writers/PlainWriter';
import { RefusedTransactionalWriter } from './writers/RefusedTransactionalWriter';
import { TransactionalWriter } from './writers/TransactionalWriter';

/** What the operations of runs are built from. */
export interface OperationsSettings {
  readonly stores: Stores;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly events: RuntimeEvents;
  readonly hooks: StepHooks;
  readonly lifecycle: Lifecycle;
  readonly invoker: BodyInvoker;
  readonly self: LeaseHolder;
  readonly durableDelayMs: number;
  readonly idempotencyWaitMs: number;
  /** Runs live in the application's own DataSource: transactional steps are possible. */
  readonly sharesApplicationDataSource: boolean;
  /** Where child runs start and are waited for (through `Executions`, as every run). */
  readonly starter: RunStarter;
  readonly waiters: RunWaiters;
  /** The runs executing in this process (their stream readers here need not poll). */
  readonly executions: Pick<Executions, 'find'>;
  /** Where `@Step({ limiter })` attempts wait for their limiter's slots. */
  readonly limiters: LimiterGate;
  /** The replay runs executing here, and the runs they take recorded model calls from. */
  readonly replaySources: ReplaySources;
}

/**
 * Builds, once per runtime, what workflow code does in a run — steps (with the writer each
 * step's plan names), child runs, durable waits, recorded values — each part given only
 * what it uses.
 */
export function buildOperations(s: OperationsSettings): WorkflowOperations {
  const { stores, codec, clock, events, hooks, lifecycle } = s;
  const store = stores.runs;
  const replay = new StepReplay(codec, events);
  const records = new StepRecords(store, stores.checkpoints);
  const handOver = new HandOver(stores.runClaims, clock, lifecycle);
  const claims = new GlobalKeyClaims(store, stores.keys, clock, lifecycle, {
    self: s.self,
    waitMs: s.idempotencyWaitMs,
  });
  const transactional = s.sharesApplicationDataSource
    ? new TransactionalWriter(stores, records, replay, codec, clock, (step) =>
        hooks.afterEffect?.({
          runId: step.run.runId,
          seq: step.seq,
          step: step.name,
          target: step.target,
        }),
      )
    : new RefusedTransactionalWriter();
  const steps = new StepPath({
    replay,
    attempts: new StepAttempts({ ...s, store, durableDelayMs: s.durableDelayMs }),
    outcomes: new StepOutcomes(store, records, codec, clock, events, replay),
    writers: {
      plain: new PlainWriter(records),
      atMostOnce: new AtMostOnceWriter(store),
      globalKey: new GlobalKeyWriter(stores, claims, clock),
      transactional,
    },
    invoker: s.invoker,
    handOver,
    clock,
    events,
    hooks,
    lifecycle,
  });
  return new WorkflowOperations(
    clock,
    steps,
    new ChildRuns(records, clock, replay, s.starter, s.waiters),
    new DurableWaits({ ...s, store, replay, records, signals: stores.signals }),
    new RecordedValues(records, clock, replay, lifecycle),
    handOver,
    new Streams({
      store: stores.streams,
      codec,
      clock,
      lifecycle,
      executingHere: (runId) => s.executions.find(runId) !== undefined,
      events,
    }),
    events,
    s.replaySources,
  );
}
