import type { Completion, StatementInfo } from '../support/StatementInfo';
import type { CompletionFault, StatementFault } from '../support/Fault';
import type { FaultProxy } from '../support/FaultProxy';
import type { FaultPlan } from './FaultPlan';
import type { InjectedFault } from './Simulation';

const STATEMENT_FAULTS = new Set(['cut-before', 'lost-ack', 'cut-mid-transaction', 'delay']);
const WRITES = new Set<StatementInfo['kind']>(['insert', 'update', 'delete', 'commit']);

/**
 * One worker's statement faults, drawn from a seeded PRNG as its proxy sees each statement
 * and each completion, while the plan's window is open and under its cap: a statement cut
 * before the server sees it, a delayed one, a committed write whose answer is lost, a
 * connection cut inside an open transaction.
 */
export class StatementFaults {
  private count = 0;

  constructor(
    private readonly proxy: FaultProxy,
    private readonly worker: number,
    private readonly plan: FaultPlan,
    private readonly random: () => number,
    private readonly open: () => boolean,
  ) {
    proxy.onStatement((statement) => this.beforeServer(statement));
    proxy.onCompletion((completion) => this.afterServer(completion));
  }

  /** The statement faults injected so far, as the proxy logged them. */
  injected(): InjectedFault[] {
    return this.proxy.log.faults
      .filter((f) => STATEMENT_FAULTS.has(f.kind))
      .map((f) => ({ at: f.at, worker: this.worker, kind: f.kind, description: f.description }));
  }

  private allowed(): boolean {
    return this.open() && this.count < this.plan.maxStatementFaults;
  }

  private beforeServer(_statement: StatementInfo): StatementFault | undefined {
    if (!this.allowed()) return undefined;
    const rates = this.plan.statements;
    if (this.random() < rates.cutBefore) return this.take({ kind: 'cut-before' });
    if (this.random() < rates.delay) return this.take({ kind: 'delay', ms: rates.delayMs });
    return undefined;
  }

  private afterServer(completion: Completion): CompletionFault | undefined {
    if (!this.allowed() || completion.error || completion.statement.command === 'prepare') {
      return undefined;
    }
    const rates = this.plan.statements;
    const { kind, sql } = completion.statement;
    const { target } = rates;
    const aimed = target !== undefined && sql.trimStart().startsWith(target.sql);
    const lostAck = aimed ? target.lostAck : rates.lostAck;
    if (completion.status === 'idle' && WRITES.has(kind) && this.random() < lostAck) {
      return this.take({ kind: 'lost-ack' });
    }
    if (completion.status === 'transaction' && this.random() < rates.cutMidTransaction) {
      return this.take({ kind: 'cut-mid-transaction', forwardReply: this.random() < 0.5 });
    }
    return undefined;
  }

  private take<F>(fault: F): F {
    this.count++;
    return fault;
  }
}
