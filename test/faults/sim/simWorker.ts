/**
 * One worker of the fault simulator: a real runtime on the application's DataSource (so the
 * transactional step can run), pulling `SimFlow` runs until it is killed. Its clock is
 * `clockOffsetMs` away from real time (a host whose clock drifted); its database URL goes
 * through a fault proxy (PostgreSQL, MariaDB) or its SQLite driver injects faults itself
 * (`sqliteFaults.ts`, loaded first). What its step bodies do is noted in its ledger.
 *
 * Prints `ready` once its runtime is open. Usage:
 *   node -r @swc-node/register [-r test/faults/sim/sqliteFaults.ts] simWorker.ts <config-json>
 */
import 'reflect-metadata';
// Before anything opens a database: on SQLite, the driver's own faults (a no-op elsewhere).
import './sqliteFaults';
import { container } from 'tsyringe';
import { DataSource } from 'typeorm';
import { Waymark, type Clock, type Duration } from 'waymark';
import { runChild } from '../../support/runChild';
import { SIM_LEDGER, SimFlow, simDataSourceOptions } from './SimFlow';
import { SimLedger } from './SimLedger';

/** What the parent tells a worker. */
export interface SimWorkerConfig {
  readonly url: string;
  readonly dir: string;
  readonly worker: number;
  readonly life: number;
  readonly clockOffsetMs: number;
  readonly leaseDuration: Duration;
  readonly storeRetryTimeout: Duration;
  readonly concurrency: number;
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '') as SimWorkerConfig;
  const ledger = new SimLedger(config.dir, config.worker, config.life);
  container.register(SIM_LEDGER, { useValue: ledger });
  container.register(SimFlow, { useClass: SimFlow });
  const app = new DataSource(simDataSourceOptions(config.url));
  await app.initialize();
  const runtime = await Waymark.create({
    database: app,
    clock: offsetClock(config.clockOffsetMs),
    leaseDuration: config.leaseDuration,
    storeRetryTimeout: config.storeRetryTimeout,
    // Faults are the point here: what a user would be warned of is expected.
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: log },
  });
  runtime.on('step.completed', (e) =>
    ledger.append({ k: 'committed', run: e.runId, seq: e.seq, step: e.step }),
  );
  runtime.startWorker({ concurrency: config.concurrency, pollInterval: '100ms' });
  noteStalls(ledger);
  process.stdout.write('ready\n');
}

/** How often the worker looks at its own event loop, and how late a look is a stall. */
const LOOK_EVERY_MS = 100;
const STALL_MS = 400;

/**
 * Notes in the ledger each time this process's event loop did not run for STALL_MS or more:
 * a machine loaded by other work (a full test run beside the simulation) starves a worker as
 * a SIGSTOP does, and its lease renewals wait with it. A take-over after a stall is the lease
 * doing its job; one with no stall, stop or fault near it is still a violation.
 */
function noteStalls(ledger: SimLedger): void {
  let last = Date.now();
  setInterval(() => {
    const now = Date.now();
    const late = now - last - LOOK_EVERY_MS;
    last = now;
    if (late >= STALL_MS) ledger.append({ k: 'fault', fault: 'stall', sql: `${late} ms late` });
  }, LOOK_EVERY_MS).unref();
}

function log(message: string, fields?: Record<string, unknown>): void {
  const error = fields?.error;
  const detail = error instanceof Error ? (error.stack ?? error.message) : '';
  process.stderr.write(`${message} ${detail}\n`);
}

/** Real time, off by `offsetMs`: the runtime's timers and `ctx.now()` read it. */
function offsetClock(offsetMs: number): Clock {
  return {
    now: () => Date.now() + offsetMs,
    sleep: (ms, signal) =>
      new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason as Error);
        const onAbort = (): void => {
          clearTimeout(timer);
          reject(signal?.reason as Error);
        };
        const timer = setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, ms);
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
  };
}

runChild(main);
