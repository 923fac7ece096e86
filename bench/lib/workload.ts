import { performance } from 'node:perf_hooks';

/** What every step of every system returns. */
export interface StepResult {
  i: number;
  text: string;
}

export const stepResult = (i: number): StepResult => ({ i, text: 'x'.repeat(100) });

/** The same N calls, plain async, in the same process: what the durable runs are compared to. */
export async function baseline(steps: number): Promise<number> {
  const plain = async (i: number): Promise<StepResult> => stepResult(i);
  const start = performance.now();
  let last = 0;
  for (let i = 0; i < steps; i++) last = (await plain(i)).i;
  const elapsed = performance.now() - start;
  if (last !== steps - 1) throw new Error('baseline did not run');
  return elapsed;
}

/** A system measured with the workload: waymark on one database, a floor, or a peer. */
export interface System {
  /** Row label, e.g. 'waymark' or 'DBOS Transact 5.3.0'. */
  readonly label: string;
  /** Database and durability setting, e.g. 'SQLite file (WAL, synchronous=FULL)'. */
  readonly db: string;
  readonly kind: 'waymark' | 'floor' | 'peer' | 'not durable per step';
  /** Where its statements are counted (lib/counter channelOf); every channel when absent. */
  readonly channel?: string;
  open(): Promise<void>;
  /** One workflow of `steps` sequential steps, to completion; returns its run / thread id. */
  run(steps: number): Promise<string>;
  close(): Promise<void>;
  /** Bytes stored for run `id`, where the system can tell (PostgreSQL row sizes). */
  storedBytes?(id: string): Promise<number> | undefined;
}

let counter = 0;
/** A run / thread / workflow id nobody used before. */
export const freshId = (prefix: string): string =>
  `${prefix}-${process.pid}-${Date.now().toString(36)}-${(counter++).toString(36)}`;
