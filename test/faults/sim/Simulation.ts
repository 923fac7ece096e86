import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container } from 'tsyringe';
import { DataSource } from 'typeorm';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { WorkerProcess } from '../../crash/support/WorkerProcess';
import { createTestDatabase, type TestDatabase } from '../../support/databases';
import { deriveSeed, mulberry32 } from '../../support/SeededRandom';
import { FaultProxy } from '../support/FaultProxy';
import { collectEvidence, type Evidence } from './Evidence';
import type { FaultPlan, TimedFault } from './FaultPlan';
import { SIM_LEDGER, SimFlow, simDataSourceOptions } from './SimFlow';
import { SimLedger } from './SimLedger';
import type { SimWorkerConfig } from './simWorker';
import type { SqliteFaultPlan } from './sqliteFaults';
import { StatementFaults } from './StatementFaults';

/** One fault as it was injected, for the report and the overlap check's excuses. */
export interface InjectedFault {
  readonly at: number;
  readonly worker: number;
  readonly kind: string;
  readonly description: string;
}

/** How long, after the faults end, every run has to complete. */
const SETTLE_MS = 60_000;
/** How long the first workers have to start. */
const READY_MS = 60_000;
const WORKER_SCRIPT = 'test/faults/sim/simWorker.ts';

/**
 * Drives one seeded schedule: real worker processes (restarted after each SIGKILL) on a real
 * database, each through a fault proxy of its own (PostgreSQL, MariaDB) or with faults in its
 * SQLite driver; the timed faults and statement faults of the plan while its window is open;
 * then no faults until every run has ended. Returns what happened, for the invariants.
 */
export class Simulation {
  private readonly workers: Array<WorkerProcess | undefined> = [];
  private readonly lives: number[] = [];
  /** When each worker life ended (killed or exited), by `worker:life`. */
  private readonly deaths = new Map<string, number>();
  private readonly proxies: FaultProxy[] = [];
  private readonly statementFaults: StatementFaults[] = [];
  private readonly injected: InjectedFault[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Opens when every first worker is ready, so faults hit running workers, not their start-up. */
  private windowOpen = false;
  private started = 0;

  private constructor(
    private readonly plan: FaultPlan,
    private readonly db: TestDatabase,
    private readonly dir: string,
    private readonly app: DataSource,
  ) {}

  /** Runs `plan` to the end and gathers the evidence; everything it started is stopped. */
  static async run(plan: FaultPlan): Promise<Evidence> {
    const db = await createTestDatabase(plan.backend);
    const dir = mkdtempSync(join(tmpdir(), `waymark-sim-${plan.seed}-`));
    let app: DataSource | undefined;
    let simulation: Simulation | undefined;
    try {
      app = new DataSource({ ...simDataSourceOptions(db.url), synchronize: true });
      await app.initialize();
      simulation = new Simulation(plan, db, dir, app);
      return await simulation.drive();
    } finally {
      await simulation?.stop();
      await app?.destroy();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private async drive(): Promise<Evidence> {
    const { plan } = this;
    if (plan.backend !== 'sqlite-file') await this.startProxies();
    const producer = await this.producer();
    try {
      for (let worker = 0; worker < plan.workers; worker++) this.startWorker(worker);
      await this.untilReady();
      this.openWindow();
      for (const fault of plan.timed) this.later(fault.atMs, () => this.inject(fault));
      await this.enqueueRuns(producer);
    } finally {
      await producer.close({ grace: 0 });
    }
    const rest = this.started + plan.windowMs - Date.now();
    if (rest > 0) await new Promise<void>((resolve) => this.later(rest, resolve));
    this.endFaults();
    const settled = await this.untilSettled();
    const evidence = await collectEvidence({
      plan,
      app: this.app,
      dir: this.dir,
      injected: [...this.injected, ...this.statementFaults.flatMap((f) => f.injected())],
      deaths: this.deaths,
      timedOut: !settled,
    });
    return evidence;
  }

  /** A runtime that starts runs (queued for the workers) and executes none, untouched by faults. */
  private async producer(): Promise<WaymarkRuntime> {
    const scope = container.createChildContainer();
    scope.register(SIM_LEDGER, { useValue: new SimLedger(this.dir, -1, 0) });
    return Waymark.create({ database: this.app, workerId: 'sim-producer', container: scope });
  }

  /** Queues each run `pending` when it arrives. */
  private async enqueueRuns(producer: WaymarkRuntime): Promise<void> {
    const runs = [...this.plan.runs].sort((a, b) => a.arrivesAtMs - b.arrivesAtMs);
    for (const { arrivesAtMs, ...spec } of runs) {
      const wait = this.started + arrivesAtMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (process.env.WAYMARK_SIM_VERBOSE)
        console.error(`+${Date.now() - this.started}ms queue ${spec.runId}`);
      await producer.start(SimFlow, 'run', [spec], { queue: true });
    }
  }

  private async startProxies(): Promise<void> {
    const url = new URL(this.db.url);
    const dialect = this.plan.backend === 'postgres' ? 'postgres' : 'mysql';
    for (let worker = 0; worker < this.plan.workers; worker++) {
      const proxy = await FaultProxy.start({ dialect, port: Number(url.port) });
      const random = mulberry32(deriveSeed(this.plan.seed, this.plan.backend, 'proxy', worker));
      const faults = new StatementFaults(proxy, worker, this.plan, random, () => this.windowOpen);
      this.proxies.push(proxy);
      this.statementFaults.push(faults);
    }
  }

  /** The URL worker `worker` connects with: through its proxy, if it has one. */
  private urlOf(worker: number): string {
    const proxy = this.proxies[worker];
    if (!proxy) return this.db.url;
    const url = new URL(this.db.url);
    url.port = String(proxy.port);
    return url.toString();
  }

  private startWorker(worker: number): void {
    // One process per slot, as a supervisor keeps it. A SIGKILL's restart is timed, and the
    // faults' end or the settle loop may have restarted the slot first: a second process
    // there would be left out of `stop()` and outlive the test.
    if (this.workers[worker]?.running) return;
    const life = (this.lives[worker] ?? -1) + 1;
    this.lives[worker] = life;
    const { plan } = this;
    const config: SimWorkerConfig = {
      url: this.urlOf(worker),
      dir: this.dir,
      worker,
      life,
      clockOffsetMs: plan.clockOffsetsMs[worker],
      leaseDuration: plan.leaseMs,
      storeRetryTimeout: plan.storeRetryTimeoutMs,
      concurrency: plan.concurrency,
    };
    const sqlite: SqliteFaultPlan = {
      seed: deriveSeed(plan.seed, 'sqlite', worker, life),
      rate: plan.sqliteRate,
      max: plan.sqliteMax,
      windowFile: this.windowFile,
      dir: this.dir,
      worker,
      life,
    };
    const env: Record<string, string> =
      plan.backend === 'sqlite-file' ? { WAYMARK_SIM_SQLITE_FAULTS: JSON.stringify(sqlite) } : {};
    const process = WorkerProcess.start(WORKER_SCRIPT, [JSON.stringify(config)], {
      timeoutMs: READY_MS + plan.windowMs + SETTLE_MS + 60_000,
      env,
    });
    this.workers[worker] = process;
    void process.exited.then(
      () => this.deaths.set(`${worker}:${life}`, Date.now()),
      () => this.deaths.set(`${worker}:${life}`, Date.now()),
    );
  }

  private inject(fault: TimedFault): void {
    if (!this.windowOpen) return;
    const process = this.workers[fault.worker];
    const note = (description: string): void => {
      this.injected.push({ at: Date.now(), worker: fault.worker, kind: fault.kind, description });
    };
    switch (fault.kind) {
      case 'sigkill': {
        if (!process?.running) return;
        process.kill();
        note(`SIGKILL of life ${this.lives[fault.worker]}`);
        // A new process takes the slot, as a supervisor would restart it.
        this.later(200 + (fault.atMs % 600), () => this.startWorker(fault.worker));
        return;
      }
      case 'sigstop': {
        if (!process?.running) return;
        process.signal('SIGSTOP');
        note(`SIGSTOP for ${fault.ms} ms`);
        this.later(fault.ms, () => process.signal('SIGCONT'));
        return;
      }
      case 'outage': {
        const proxy = this.proxies[fault.worker];
        if (!proxy) return;
        const cut = proxy.cutAll();
        void proxy.refuse(fault.ms);
        note(`${cut} connections cut, new ones refused for ${fault.ms} ms`);
        return;
      }
      case 'cut-all': {
        const proxy = this.proxies[fault.worker];
        if (proxy) note(`${proxy.cutAll()} connections cut`);
      }
    }
  }

  /** Faults end: every stopped worker continues, every dead slot gets a process. */
  /**
   * Waits until every first worker has printed `ready` (migrated, listening for work): on a
   * loaded machine starting Node, the TypeScript loader and TypeORM takes seconds, and faults
   * timed from the spawn would mostly land before any worker had a connection to lose.
   */
  private async untilReady(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the workers were not ready within ${READY_MS} ms`)),
        READY_MS,
      );
    });
    try {
      await Promise.race([
        Promise.all(
          this.workers.flatMap((w) => (w ? [w.waitForLine((line) => line === 'ready')] : [])),
        ),
        deadline,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private get windowFile(): string {
    return join(this.dir, 'fault-window-open');
  }

  private openWindow(): void {
    this.started = Date.now();
    this.windowOpen = true;
    writeFileSync(this.windowFile, '');
  }

  private endFaults(): void {
    this.windowOpen = false;
    rmSync(this.windowFile, { force: true });
    for (const proxy of this.proxies) proxy.accept();
    for (let worker = 0; worker < this.plan.workers; worker++) {
      const process = this.workers[worker];
      if (process?.running) process.signal('SIGCONT');
      else this.startWorker(worker);
    }
  }

  /** Waits until every run has ended; false if some had not within the settle time. */
  private async untilSettled(): Promise<boolean> {
    const deadline = Date.now() + SETTLE_MS;
    const ids = this.plan.runs.map((r) => r.runId);
    const marks = ids.map((_, i) => (this.plan.backend === 'postgres' ? `$${i + 1}` : '?'));
    while (Date.now() < deadline) {
      const rows = await this.app.query<Array<{ n: unknown }>>(
        `SELECT COUNT(*) AS n FROM waymark_runs WHERE id IN (${marks.join(', ')}) ` +
          "AND status IN ('completed', 'failed', 'cancelled', 'needs_attention')",
        ids,
      );
      if (Number(rows[0].n) === ids.length) return true;
      // A worker that died on its own (not by the plan) is restarted: the runs must end.
      for (let worker = 0; worker < this.plan.workers; worker++) {
        if (!this.workers[worker]?.running) this.startWorker(worker);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return false;
  }

  private later(ms: number, act: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      act();
    }, ms);
    this.timers.add(timer);
  }

  private async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    for (const process of this.workers) {
      process?.signal('SIGCONT');
      process?.kill();
    }
    await Promise.all(
      this.workers.map((p) => (p ? p.exited.catch(() => undefined) : Promise.resolve())),
    );
    await Promise.all(this.proxies.map((p) => p.close()));
  }
}
