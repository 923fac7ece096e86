import type { FaultKind } from './Fault';
import type { StatementInfo, StatementKind } from './StatementInfo';

/** One injected fault. */
export interface FaultRecord {
  readonly kind: FaultKind;
  /** When it was injected (`Date.now()`). */
  readonly at: number;
  /** The connection it hit; 0 for proxy-wide faults (`refuse`, `cut-all`). */
  readonly connectionId: number;
  /** What it hit, e.g. `#12 execute insert "INSERT INTO steps ..." → idle`. */
  readonly description: string;
}

const SQL_SHOWN = 80;

/**
 * What passed through a fault proxy and what it injected, for a simulator to print a failing
 * schedule's faults and publish figures.
 */
export class FaultLog {
  /** Statements seen, by kind, including those a fault then dropped. */
  readonly statements: Record<StatementKind, number> = {
    select: 0,
    insert: 0,
    update: 0,
    delete: 0,
    begin: 0,
    commit: 0,
    rollback: 0,
    other: 0,
  };
  /** Completions seen (replies the server finished), including withheld ones. */
  completions = 0;
  /** Connections accepted and forwarded. */
  accepted = 0;
  /** Connections accepted and destroyed at once while refusing. */
  refused = 0;
  private readonly records: FaultRecord[] = [];
  private readonly started = Date.now();

  /** Every injected fault, oldest first. */
  get faults(): readonly FaultRecord[] {
    return this.records;
  }

  /** How many faults of `kind` have been injected. */
  count(kind: FaultKind): number {
    return this.records.filter((record) => record.kind === kind).length;
  }

  /** Records a fault; `description` says what it hit. */
  record(kind: FaultKind, connectionId: number, description: string): void {
    this.records.push({ kind, at: Date.now(), connectionId, description });
  }

  /** The faults as lines, `+<ms since the proxy started> <kind> conn <id>: <description>`. */
  summary(): string[] {
    return this.records.map(
      (r) => `+${r.at - this.started}ms ${r.kind} conn ${r.connectionId}: ${r.description}`,
    );
  }
}

/** A short account of a statement for a fault record. */
export function describeStatement(statement: StatementInfo): string {
  const sql = statement.sql.replace(/\s+/g, ' ').trim();
  const shown = sql.length > SQL_SHOWN ? `${sql.slice(0, SQL_SHOWN)}...` : sql;
  return `#${statement.ordinal} ${statement.command} ${statement.kind} "${shown}"`;
}
