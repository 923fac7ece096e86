import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container } from 'tsyringe';
import { Waymark, type StepRecord, type WaymarkRuntime } from 'waymark';
import {
  readStepLedger,
  STEP_LEDGER_PATH,
  type StepLedgerEntry,
} from '../../crash/fixtures/StepLedger';
import { ClusterOrder, GATEWAY, type OrderPlan, type OrderResult } from '../fixtures/ClusterOrder';
import type { ClusterWorkerOptions } from '../fixtures/clusterWorker';
import { ClusterWorker, type ClusterEvent } from './ClusterWorker';

/** A disruption (a killed node, a failover, a deploy) in the middle of the work. */
export interface Disruption {
  /** Whether to strike now, given the checkpoints committed so far over all workers. */
  when(committed: number, workers: ClusterWorker[]): boolean;
  /** Does the damage; resolves with `Date.now()` at the moment of the kill. */
  strike(workers: ClusterWorker[]): Promise<number>;
  /** Afterwards (a promotion, say); the fleet goes on while it works. */
  recover?(): Promise<void>;
}

/** What a fleet of worker processes is asked to do. */
export interface FleetSpec {
  /** One URL per worker process (each with its own host order). */
  workerUrls: string[];
  /** Where the test process enqueues, signals and reads (a host list too). */
  producerUrl: string;
  /** The effect ledger's database, outside the replicated one. */
  effectsUrl: string;
  runs: number;
  plan(index: number): OrderPlan;
  workerOptions: ClusterWorkerOptions;
  disruption?: Disruption;
  deadlineMs: number;
}

/** Everything a fleet run left behind, for the checks. */
export interface FleetEvidence {
  runIds: string[];
  plans: Map<string, OrderPlan>;
  /** Runs not completed by the deadline. */
  unfinished: string[];
  results: Map<string, OrderResult>;
  histories: Map<string, StepRecord[]>;
  /** Every step body execution, in any process. */
  ledger: StepLedgerEntry[];
  /** Events of each worker, in worker order. */
  events: ClusterEvent[][];
  workers: ClusterWorker[];
  /** `Date.now()` when the workers started polling, and when the last run completed. */
  goAt: number;
  doneAt: number;
  killAt: number | undefined;
  /** Committed checkpoints when the disruption struck. */
  stepsAtKill: number;
}

/**
 * Enqueues `runs` orders, starts one worker process per URL, strikes the disruption when
 * enough steps committed, sends each run's approval once it waits for it, and waits until
 * every run completed (or the deadline). The workers are left running for the caller to
 * question and stop ({@link stopFleet}).
 */
export async function runFleet(spec: FleetSpec): Promise<FleetEvidence> {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-cluster-'));
  const ledgerPath = join(dir, 'steps.ledger');
  const scope = container.createChildContainer();
  // The producer enqueues and reads; it executes nothing, so it needs no real gateway.
  scope.register(STEP_LEDGER_PATH, { useValue: join(dir, 'unused.ledger') });
  scope.register(GATEWAY, { useValue: { charge: () => Promise.reject(new Error('not here')) } });
  // Quiet: a failover makes node-postgres report every connection the server closed.
  const producer = await Waymark.create({
    database: spec.producerUrl,
    container: scope,
    logger: {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    },
  });
  const workers: ClusterWorker[] = [];
  try {
    const plans = new Map<string, OrderPlan>();
    for (let i = 0; i < spec.runs; i++) {
      const plan = spec.plan(i);
      const handle = await producer.start(ClusterOrder, 'order', [`order-${i}`, plan], {
        runId: `order-${i}`,
        queue: true,
      });
      plans.set(handle.runId, plan);
    }
    const barrier = join(dir, 'go');
    for (const url of spec.workerUrls) {
      const options = { ...spec.workerOptions, barrier };
      workers.push(
        ClusterWorker.start(url, spec.effectsUrl, ledgerPath, options, spec.deadlineMs + 60_000),
      );
    }
    await Promise.all(workers.map((w) => w.ready()));
    writeFileSync(barrier, '');
    await Promise.all(workers.map((w) => w.polling()));
    const goAt = Date.now();

    const runIds = [...plans.keys()];
    const signalled = new Set<string>();
    let killAt: number | undefined;
    let stepsAtKill = 0;
    let recovering: Promise<void> | undefined;
    let completed = 0;
    while (completed < spec.runs && Date.now() - goAt < spec.deadlineMs) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const all = workers.flatMap((w) => w.events('step.completed'));
      if (spec.disruption && killAt === undefined && spec.disruption.when(all.length, workers)) {
        stepsAtKill = all.length;
        killAt = await spec.disruption.strike(workers);
        recovering = spec.disruption.recover?.();
      }
      await sendApprovals(producer, workers, plans, signalled);
      completed = await countCompleted(producer);
    }
    await recovering;
    const doneAt = Date.now();
    const unfinished: string[] = [];
    const results = new Map<string, OrderResult>();
    const histories = new Map<string, StepRecord[]>();
    for (const runId of runIds) {
      const handle = producer.handle<OrderResult>(runId);
      if ((await handle.status()) !== 'completed') {
        unfinished.push(runId);
        continue;
      }
      results.set(runId, await handle.result());
      histories.set(runId, await producer.history(runId));
    }
    return {
      runIds,
      plans,
      unfinished,
      results,
      histories,
      ledger: readStepLedger(ledgerPath),
      events: workers.map((w) => w.child.lines.map(parseLine)),
      workers,
      goAt,
      doneAt,
      killAt,
      stepsAtKill,
    };
  } catch (error) {
    await stopFleet(workers);
    throw error;
  } finally {
    await producer.close({ grace: 0 });
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Stops every worker (SIGTERM, then SIGKILL) and waits for them. */
export async function stopFleet(workers: ClusterWorker[]): Promise<void> {
  await Promise.all(workers.map((w) => w.terminate(10_000).catch(() => undefined)));
}

/** Signals `approval` to each run that asked for it and now waits for it. */
async function sendApprovals(
  producer: WaymarkRuntime,
  workers: ClusterWorker[],
  plans: Map<string, OrderPlan>,
  signalled: Set<string>,
): Promise<void> {
  const waits = new Map<string, number>();
  for (const event of workers.flatMap((w) => w.events('run.waiting'))) {
    waits.set(event.fields[0], (waits.get(event.fields[0]) ?? 0) + 1);
  }
  for (const [runId, count] of waits) {
    const plan = plans.get(runId);
    if (!plan?.approval || signalled.has(runId)) continue;
    // A run that sleeps first is released twice: for the sleep, then for the signal.
    if (count < (plan.sleep === undefined ? 1 : 2)) continue;
    signalled.add(runId);
    await producer.signal(runId, 'approval', { by: `approver-of-${runId}` });
  }
}

async function countCompleted(producer: WaymarkRuntime): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await producer.list({
      workflow: 'cluster-order',
      status: 'completed',
      limit: 500,
      cursor,
    });
    count += page.runs.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return count;
}

function parseLine(line: string): ClusterEvent {
  const [name, ...rest] = line.split(' ');
  return { name, fields: rest.slice(0, -1), at: Number(rest[rest.length - 1]) };
}
