import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { Column, Entity, PrimaryColumn, type DataSourceOptions } from 'typeorm';
import {
  dataSourceOptionsFromUrl,
  Idempotent,
  isUnknownOutcomeError,
  Retry,
  RetryableError,
  Step,
  Workflow,
  WorkflowContext,
} from 'waymark';
import { RunScope } from '../../../src/runtime/execution/RunScope';
import type { SimLedger } from './SimLedger';

/** One simulated run: its id, the global idempotency key it shares with others, its chunks. */
export interface SimSpec {
  readonly runId: string;
  readonly key: string;
  readonly chunks: number;
  /** How long each step body takes. */
  readonly stepMs: number;
}

/** What a run returns; a pure function of its spec when nothing is lost ({@link expectedResult}). */
export interface SimResult {
  readonly runId: string;
  readonly prepared: number;
  /** `unknown` only when the at-most-once step's process stopped while its body ran. */
  readonly charge: 'charged' | 'unknown';
  readonly retried: number;
  readonly saved: string;
  readonly invoice: string;
  readonly streamed: number;
  readonly finished: number;
}

/** A step's output: its value, and the token of the body execution that produced it. */
interface Tokened<T> {
  readonly value: T;
  readonly token: string;
}

/** The application's own row, written by the transactional step, one per run. */
@Entity('sim_orders')
export class SimOrder {
  @PrimaryColumn({ name: 'run_id', type: 'varchar', length: 100 })
  runId!: string;

  @Column({ name: 'token', type: 'varchar', length: 100 })
  token!: string;
}

/** The token of the worker's ledger in its container. */
export const SIM_LEDGER = Symbol('SIM_LEDGER');

/** The step names, in the order a run calls them (each at the seq of its index). */
export const SIM_STEPS = ['prepare', 'charge', 'flaky', 'save', 'invoice', 'emit', 'finish'];
export const AT_MOST_ONCE_STEP = 'charge';
export const KEYED_STEP = 'invoice';
export const TRANSACTIONAL_STEP = 'save';
export const STREAM = 'out';

const mix = (text: string, n: number): number => {
  let hash = 0x811c9dc5 ^ n;
  for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return (hash >>> 0) % 100_000;
};

/** The result a run returns when nothing goes wrong. */
export function expectedResult(spec: SimSpec): SimResult {
  return {
    runId: spec.runId,
    prepared: mix(spec.runId, 0),
    charge: 'charged',
    retried: mix(spec.runId, 2),
    saved: `saved ${spec.runId}`,
    invoice: `invoice ${spec.key}`,
    streamed: spec.chunks,
    finished: mix(spec.runId, 6),
  };
}

/** The chunk a run's emit step writes at `index`. */
export function chunkOf(runId: string, index: number): string {
  return `${runId}#${index}`;
}

/**
 * The simulator's workload: every kind of step waymark writes differently — plain, at most
 * once, retried (its first attempt fails), transactional (an application row), under a global
 * idempotency key shared with other runs, streaming — each body noting in the ledger when it
 * runs, under which claim (epoch), with a token its stored output carries.
 */
@injectable()
export class SimFlow {
  private static counter = 0;

  constructor(
    private readonly ctx: WorkflowContext,
    @inject(SIM_LEDGER) private readonly ledger: SimLedger,
  ) {}

  @Workflow({ name: 'sim', id: (spec: SimSpec) => spec.runId })
  async run(spec: SimSpec): Promise<SimResult> {
    const { stepMs } = spec;
    const prepared = (await this.prepare(spec.runId, stepMs)).value;
    let charge: SimResult['charge'] = 'charged';
    try {
      await this.charge(spec.runId, stepMs);
    } catch (error) {
      if (!isUnknownOutcomeError(error)) throw error;
      charge = 'unknown';
    }
    const retried = (await this.flaky(spec.runId, stepMs)).value;
    const saved = (await this.save(spec.runId, stepMs)).value;
    const invoice = (await this.invoice(spec.key, stepMs)).value;
    const streamed = (await this.emit(spec.runId, spec.chunks)).value;
    const finished = (await this.finish(spec.runId, stepMs)).value;
    return { runId: spec.runId, prepared, charge, retried, saved, invoice, streamed, finished };
  }

  @Step()
  async prepare(runId: string, ms: number): Promise<Tokened<number>> {
    return this.body('prepare', ms, async () => mix(runId, 0));
  }

  @Step({ atMostOnce: true })
  async charge(runId: string, ms: number): Promise<Tokened<string>> {
    return this.body('charge', ms, async () => `charged ${runId}`);
  }

  @Step()
  @Retry({ maxAttempts: 4, backoff: { fixed: '20ms' } })
  async flaky(runId: string, ms: number): Promise<Tokened<number>> {
    return this.body('flaky', ms, async () => {
      if (this.ctx.attempt === 1) throw new RetryableError('the first attempt always fails');
      return mix(runId, 2);
    });
  }

  @Step({ transactional: true })
  async save(runId: string, ms: number): Promise<Tokened<string>> {
    return this.body('save', ms, async (token) => {
      await this.ctx.entityManager.insert(SimOrder, { runId, token });
      return `saved ${runId}`;
    });
  }

  @Step()
  @Idempotent({ key: (key: string) => key, scope: 'global' })
  async invoice(key: string, ms: number): Promise<Tokened<string>> {
    return this.body('invoice', ms, async () => `invoice ${key}`, key);
  }

  @Step()
  async emit(runId: string, chunks: number): Promise<Tokened<number>> {
    return this.body('emit', 0, async () => {
      const out = this.ctx.stream<string>(STREAM);
      for (let index = 0; index < chunks; index++) {
        out.write(chunkOf(runId, index));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return chunks;
    });
  }

  @Step()
  async finish(runId: string, ms: number): Promise<Tokened<number>> {
    return this.body('finish', ms, async () => mix(runId, 6));
  }

  /** Runs `work` as the body of `step`, noting its start and its end (returned or thrown). */
  private async body<T>(
    step: string,
    ms: number,
    work: (token: string) => Promise<T>,
    key?: string,
  ): Promise<Tokened<T>> {
    const scope = RunScope.current();
    if (!scope?.step) throw new Error(`${step} ran outside a step`);
    const token = `${process.pid}-${++SimFlow.counter}-${randomBytes(3).toString('hex')}`;
    const where = { run: scope.run.runId, seq: scope.step.seq, step, token, key };
    this.ledger.append({
      k: 'body',
      ...where,
      attempt: scope.step.attempt,
      epoch: scope.run.epoch,
    });
    try {
      // Time for faults to land while the body runs, as a call to an API takes.
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { value: await work(token), token };
    } finally {
      this.ledger.append({ k: 'end', ...where });
    }
  }
}

/** The application's DataSource options for `url`: its one entity; SQLite in WAL mode, as waymark opens it. */
export function simDataSourceOptions(url: string): DataSourceOptions {
  const options = dataSourceOptionsFromUrl(url);
  const sqlite = options.type === 'better-sqlite3' ? { enableWAL: true, timeout: 10_000 } : {};
  return { ...options, ...sqlite, entities: [SimOrder] };
}
