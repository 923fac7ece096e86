import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a worker saw happen, kept outside the database under test. */
export type LedgerEntry =
  /** A step body started (`token` is unique to this execution of it). */
  | (BodyKey & { readonly k: 'body'; readonly attempt: number; readonly epoch: number })
  /** The body returned or threw (its checkpoint not written yet). */
  | (BodyKey & { readonly k: 'end' })
  /** A step's checkpoint committed in this process (the `step.completed` event). */
  | (StepKey & { readonly k: 'committed' })
  /** A driver fault the worker injected into itself (SQLite). */
  | (Stamp & { readonly k: 'fault'; readonly fault: string; readonly sql: string });

interface Stamp {
  /** Real time (`Date.now()`, never the worker's skewed clock). */
  readonly t: number;
  readonly pid: number;
  /** Which worker slot of the simulation, and which life of it. */
  readonly worker: number;
  readonly life: number;
}

interface StepKey extends Stamp {
  readonly run: string;
  readonly seq: number;
  readonly step: string;
}

interface BodyKey extends StepKey {
  readonly token: string;
  /** A global idempotency key the body ran under, if any. */
  readonly key?: string;
}

/** Distributes what `Omit` would collapse: each kind of entry keeps its own fields. */
type WithoutStamp<T> = T extends unknown ? Omit<T, keyof Stamp> : never;

/**
 * Appends one JSON line per entry, synchronously (`appendFileSync`: the line is in the
 * kernel's hands before the next statement, so a SIGKILL loses nothing written). One file
 * per worker life: no two processes append to one file.
 */
export class SimLedger {
  private readonly path: string;

  constructor(
    dir: string,
    private readonly worker: number,
    private readonly life: number,
  ) {
    this.path = join(dir, `ledger-${worker}-${life}.jsonl`);
  }

  append(entry: WithoutStamp<LedgerEntry>): void {
    const stamp: Stamp = { t: Date.now(), pid: process.pid, worker: this.worker, life: this.life };
    appendFileSync(this.path, `${JSON.stringify({ ...stamp, ...entry })}\n`);
  }
}

/** Every ledger entry of a simulation's folder, in time order. */
export function readLedgers(dir: string): LedgerEntry[] {
  if (!existsSync(dir)) return [];
  const entries: LedgerEntry[] = [];
  for (const name of readdirSync(dir).filter((n) => /^ledger-\d+-\d+\.jsonl$/.test(n))) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      // A line cut by a SIGKILL mid-write is not an entry.
      if (line.endsWith('}')) entries.push(JSON.parse(line) as LedgerEntry);
    }
  }
  return entries.sort((a, b) => a.t - b.t);
}
