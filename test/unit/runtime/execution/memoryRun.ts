import { Codec } from '../../../../src/codec/Codec';
import { Workflow } from '../../../../src/decorators/Workflow';
import { workflowPlanOf } from '../../../../src/decorators/Plans';
import { realClock } from '../../../../src/ground/Clock';
import { Lifecycle } from '../../../../src/ground/Lifecycle';
import { localHost, localProcess, type LeaseHolder } from '../../../../src/ground/ProcessIdentity';
import { quietConsoleLogger } from '../../../../src/ground/Logger';
import { applyMigrations } from '../../../../src/store/migrations/applyMigrations';
import { openDataSource } from '../../../../src/store/connection/openDataSource';
import type { Leases } from '../../../../src/store/Leases';
import type { RunStore } from '../../../../src/store/RunStore';
import { Database } from '../../../../src/store/connection/Database';
import { Stores } from '../../../../src/store/Stores';
import { Claims } from '../../../../src/runtime/execution/Claims';
import { RunAcquirer } from '../../../../src/runtime/execution/RunAcquirer';
import { RuntimeEvents } from '../../../../src/runtime/execution/RuntimeEvents';
import type { RunState } from '../../../../src/runtime/execution/RunState';
import type { WorkflowCall } from '../../../../src/runtime/execution/WorkflowCall';

/** A workflow for the parts under test to record steps of (its body is never called here). */
export class Flow {
  @Workflow({ name: 'unit.flow' })
  run(input: string): Promise<string> {
    return Promise.resolve(input);
  }
}

/** The call of `Flow.run(input)`, as a runtime would make it. */
export function flowCall(input = 'x'): WorkflowCall {
  return { instance: new Flow(), plan: workflowPlanOf(Flow, 'run')!, args: [input] };
}

/** An in-memory SQLite store, migrated, and what the execution parts share beside it. */
export interface MemoryStore {
  /** Every repository, on one in-memory database. */
  readonly stores: Stores;
  readonly store: RunStore;
  readonly leases: Leases;
  readonly codec: Codec;
  readonly events: RuntimeEvents;
  readonly lifecycle: Lifecycle;
  readonly self: LeaseHolder;
  readonly claims: Claims;
  readonly acquirer: RunAcquirer;
  /** Creates run `runId`, claimed by this store's holder; its state as an execution holds it. */
  claimedRun(runId: string): Promise<RunState>;
  /** Another process takes the run over (as after a lapsed lease): the claim held here is fenced out. */
  takeOver(runId: string): Promise<void>;
  close(): Promise<void>;
}

export async function openMemoryStore(): Promise<MemoryStore> {
  const { dataSource } = await openDataSource('sqlite::memory:', { retryTimeoutMs: 1000 });
  await applyMigrations(dataSource, 1000);
  const lifecycle = new Lifecycle();
  const codec = new Codec();
  const stores = new Stores(
    new Database(dataSource, lifecycle, { timeoutMs: 1000, onRetry: () => {} }),
    {
      lifecycle,
      holder: 'unit-test',
      decode: (text, path) => codec.decode(text, path),
      admitSignal: () => undefined,
      groupCommit: null,
    },
  );
  const { runs: store, leases } = stores;
  const clock = realClock;
  const self = { owner: 'unit', host: localHost(), process: localProcess('unit-test') };
  const other = { owner: 'other', host: 'elsewhere', process: 'elsewhere:1' };
  const claims = new Claims({
    leases,
    queue: stores.runClaims,
    queues: stores.queueClaims,
    self,
    leaseMs: 30_000,
    clock,
    events: new RuntimeEvents(quietConsoleLogger),
  });
  const acquirer = new RunAcquirer({
    ...{ store, claims, codec, clock, self },
    starts: store,
    onHeld: () => undefined,
  });
  const identity = (call: WorkflowCall) => ({
    workflow: call.plan.name,
    args: Codec.canonical(codec.encode(call.args, 'args')),
  });
  return {
    stores,
    store,
    leases,
    codec,
    events: new RuntimeEvents(quietConsoleLogger),
    lifecycle,
    self,
    claims,
    acquirer,
    async claimedRun(runId) {
      const call = flowCall();
      const acquired = await acquirer.create(call, runId, identity(call), undefined, () => false);
      if (acquired.kind !== 'claimed') throw new Error(`run "${runId}" was not claimed`);
      return acquired.state;
    },
    async takeOver(runId) {
      const row = await store.loadRun(runId);
      const claim = await leases.claim(row!, other, 'other-token', 30_000, clock.now());
      if (!claim) throw new Error(`run "${runId}" could not be taken over`);
    },
    async close() {
      lifecycle.markClosed();
      await dataSource.destroy();
    },
  };
}
