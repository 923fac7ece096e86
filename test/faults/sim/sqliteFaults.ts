/**
 * Loaded first (`-r`) into a simulator worker on SQLite, where there is no connection to cut:
 * makes the driver fail statements itself, as a seeded plan says — SQLITE_BUSY (another
 * process holds the lock past the busy timeout), SQLITE_FULL (the disk is full), SQLITE_IOERR
 * (an I/O error) — before the statement runs, until the plan's window ends. Only waymark's own
 * statements fail (its tables, BEGIN, COMMIT): a disk-full in a step body's own SQL is that
 * body's error, which its step records as it would any other. Each fault is noted
 * in the worker's ledger. The plan comes in `WAYMARK_SIM_SQLITE_FAULTS` (JSON, {@link SqliteFaultPlan}).
 */
import { existsSync } from 'node:fs';
import { mulberry32 } from '../../support/SeededRandom';
import { injectSqliteFaults } from '../support/sqliteStatementFaults';
import { SimLedger } from './SimLedger';

/** How often a worker's SQLite driver fails a statement, and until when. */
export interface SqliteFaultPlan {
  readonly seed: number;
  /** Chance that a statement fails, from 0 to 1. */
  readonly rate: number;
  /** The most faults this worker life injects. */
  readonly max: number;
  /**
   * Statements fail only while this file exists: the simulator creates it when every worker
   * is ready and removes it when the fault window ends (a restarted worker cannot know when
   * the window opened from its own start).
   */
  readonly windowFile: string;
  readonly dir: string;
  readonly worker: number;
  readonly life: number;
}

const KINDS = [
  ['SQLITE_BUSY', 'database is locked'],
  ['SQLITE_FULL', 'database or disk is full'],
  ['SQLITE_IOERR', 'disk I/O error'],
] as const;

function install(plan: SqliteFaultPlan): void {
  const random = mulberry32(plan.seed);
  const ledger = new SimLedger(plan.dir, plan.worker, plan.life);
  let injected = 0;
  let checkedAt = 0;
  let windowOpen = false;
  /** Whether the window is open, looked up at most every 20 ms: a stat per statement is too slow. */
  const open = (): boolean => {
    const now = Date.now();
    if (now - checkedAt >= 20) {
      checkedAt = now;
      windowOpen = existsSync(plan.windowFile);
    }
    return windowOpen;
  };
  injectSqliteFaults((sql) => {
    const own = /waymark_|^\s*(BEGIN|COMMIT)/i.test(sql);
    if (!own || injected >= plan.max || !open() || random() >= plan.rate) return undefined;
    injected++;
    const [code, message] = KINDS[Math.floor(random() * KINDS.length)];
    ledger.append({ k: 'fault', fault: code, sql: sql.slice(0, 80) });
    return { code, message };
  });
}

const text = process.env.WAYMARK_SIM_SQLITE_FAULTS;
if (text) install(JSON.parse(text) as SqliteFaultPlan);
