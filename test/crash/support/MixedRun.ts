import { container } from 'tsyringe';
import { RunNotFoundError, Waymark, type RunSummary, type WaymarkRuntime } from 'waymark';
import { EffectLedger } from 'waymark/testing';
import { BodyLog } from '../fixtures/BodyLog';
import { noticeEffect } from '../fixtures/FakeMailer';
import { HARNESS_WORKER_ID, MIXED_ENV, mixedEnv } from '../fixtures/MixedEnv';
import {
  APPROVAL,
  MixedOrder,
  ORDER_ID,
  RUN_ID,
  type MixedResult,
  type Stamped,
} from '../fixtures/MixedOrder';
import type { RunEvidence } from './MixedRunChecks';
import { upTo } from '../../support/SeededRandom';
import type { StandbyWorkers } from './StandbyWorkers';
import type { WorkerProcess } from './WorkerProcess';

/** Processes a run may take beyond its kills (releases, parks, the last one) before it counts as stuck. */
const SPARE_PROCESSES = 12;

/** How one process of a run ended. */
export type ChildEnding = 'killed' | 'result' | 'released' | 'parked';

/** How one run is disturbed: its own random source, and how many kills at most. */
export interface KillPlan {
  readonly random: () => number;
  /** Kills at most this many processes; the ones after run undisturbed. */
  readonly maxKills: number;
  /** Each kill lands a uniform 0…this many ms after the process printed `ready`. */
  readonly maxDelayMs: number;
}

/**
 * One run of the mixed order on its own database, driven to completion by child processes
 * that are killed with SIGKILL at random moments and restarted. Between processes the
 * harness plays the people: it answers the approval wait, and resolves (or re-sends) a
 * mail of unknown outcome.
 */
export class MixedRun {
  /** Every process and harness action, in order: the kill schedule of failure messages. */
  readonly transcript: string[] = [];
  readonly children: Array<{ pid: number; ending: ChildEnding; lines: string[] }> = [];
  signalsSent = 0;
  resolutions = 0;
  operatorRetries = 0;
  private signalling: Promise<void> | undefined;
  private signalFailure: Error | undefined;

  private constructor(
    private readonly workers: StandbyWorkers,
    private readonly database: string,
    private readonly logPath: string,
    private readonly observer: WaymarkRuntime,
    private readonly ledger: EffectLedger,
  ) {}

  /**
   * Opens the run's database from this process: an observer runtime (it loads the
   * workflow but executes nothing: no worker, another worker id) and the effect ledger.
   * It applies the migrations, so no child is killed in the middle of them.
   */
  static async open(workers: StandbyWorkers, database: string, logPath: string): Promise<MixedRun> {
    const observer = await Waymark.create({ database, workerId: 'harness-observer' });
    try {
      const ledger = await EffectLedger.open(observer);
      return new MixedRun(workers, database, logPath, observer, ledger);
    } catch (error) {
      await observer.close();
      throw error;
    }
  }

  get kills(): number {
    return this.children.filter((c) => c.ending === 'killed').length;
  }

  /**
   * Starts processes until the run completed. `parkedSeq` is where the run may park (the
   * at-most-once step); undefined means it must not.
   */
  async complete(plan: KillPlan, parkedSeq: number | undefined): Promise<void> {
    const { random, maxKills, maxDelayMs } = plan;
    // Half the runs get their approval at a random moment while a process executes the run
    // (before the wait, or racing it); the others once the run was released to wait.
    const early = random() < 0.5 ? { from: upTo(random, 2), delayMs: upTo(random, 400) } : null;
    for (let index = 0; ; index++) {
      if (index >= maxKills + SPARE_PROCESSES) {
        throw new Error(`the run has not completed after ${index} processes`);
      }
      const killAfterMs = this.kills < maxKills ? upTo(random, maxDelayMs) : null;
      const signalAfterMs =
        early && index >= early.from && this.signalsSent === 0 ? early.delayMs : null;
      await this.runChild(index, killAfterMs, signalAfterMs);
      const run = await this.describe();
      if (run?.status === 'completed') return;
      if (run?.status === 'needs_attention') await this.operate(run, parkedSeq);
      else if (run?.status === 'waiting' && this.signalsSent === 0)
        await this.signal(`after #${index} ended with the run waiting`);
      else if (run?.status === 'failed' || run?.status === 'cancelled') {
        throw new Error(`the run ended ${run.status}`);
      }
    }
  }

  /** What the stores hold once the run is over, for the checks. */
  async evidence(): Promise<RunEvidence> {
    const handle = this.observer.handle<MixedResult>(RUN_ID);
    const { status } = await handle.describe();
    // Read directly (no API lists consumed signals); PostgreSQL numbers its placeholders.
    const { dataSource } = this.observer;
    const param = dataSource.options.type === 'postgres' ? '$1' : '?';
    const signals = await dataSource.query<Array<{ name: string; consumed_seq: unknown }>>(
      `SELECT name, consumed_seq FROM waymark_signals WHERE run_id = ${param} ORDER BY id`,
      [RUN_ID],
    );
    return {
      status,
      result: status === 'completed' ? await handle.result() : undefined,
      history: await this.observer.history(RUN_ID),
      effects: await this.ledger.entries(),
      bodies: new BodyLog(this.logPath).read(),
      signals: signals.map((s) => ({
        name: s.name,
        consumedSeq: s.consumed_seq === null ? null : Number(s.consumed_seq),
      })),
      children: this.children.map((c) => ({
        pid: c.pid,
        killed: c.ending === 'killed',
        lines: c.lines,
      })),
      signalsSent: this.signalsSent,
      operatorRetries: this.operatorRetries,
      harnessPid: process.pid,
    };
  }

  async close(): Promise<void> {
    await this.ledger.close();
    await this.observer.close();
  }

  private async runChild(
    index: number,
    killAfterMs: number | null,
    signalAfterMs: number | null,
  ): Promise<void> {
    const job = { database: this.database, logPath: this.logPath, orderId: ORDER_ID };
    const child = await this.workers.start(job);
    const timers: NodeJS.Timeout[] = [];
    let killSent = false;
    let ending: ChildEnding | 'failed' = 'failed';
    try {
      await child.waitForLine((line) => line.startsWith('ready '));
      if (killAfterMs !== null) {
        timers.push(
          setTimeout(() => {
            killSent = true;
            child.kill();
          }, killAfterMs),
        );
      }
      if (signalAfterMs !== null) {
        const when = `${signalAfterMs} ms after #${index} was ready`;
        timers.push(setTimeout(() => this.signalEarly(when), signalAfterMs));
      }
      const exit = await child.exited;
      for (const timer of timers) clearTimeout(timer);
      await this.signalling;
      if (this.signalFailure !== undefined) throw this.signalFailure;
      if (exit.signal === 'SIGKILL' && killSent) ending = 'killed';
      else if (exit.code !== 0)
        throw child.failure(`failed (${exit.signal ?? `code ${exit.code}`})`);
      else ending = endingOf(child);
      this.children.push({ pid: child.pid, ending, lines: child.lines });
    } finally {
      for (const timer of timers) clearTimeout(timer);
      const kill = killAfterMs === null ? 'no kill' : `kill +${killAfterMs} ms`;
      this.transcript.push(`#${index} pid ${child.pid}: ${kill} → ${ending}`);
      child.kill();
    }
  }

  /** Sends the approval, once. */
  private async signal(when: string): Promise<void> {
    if (this.signalsSent > 0) return;
    await this.observer.signal(RUN_ID, 'approval', APPROVAL);
    this.signalsSent++;
    this.transcript.push(`approval sent ${when}`);
  }

  /** Sends the approval while a child runs; one sent before the run exists is dropped. */
  private signalEarly(when: string): void {
    this.signalling = this.signal(when).catch((error: unknown) => {
      if (error instanceof RunNotFoundError) {
        this.transcript.push(`approval not sent ${when}: no run yet`);
      } else {
        this.signalFailure = error instanceof Error ? error : new Error(String(error));
      }
    });
  }

  /**
   * Plays the operator of a run parked by the at-most-once mail of unknown outcome: reads
   * the provider's log (the effect ledger) and records what happened with `resolveStep()`,
   * or, when no mail went out, sends it again with `retry()`.
   */
  private async operate(run: RunSummary, parkedSeq: number | undefined): Promise<void> {
    if (run.parkedSeq !== parkedSeq || parkedSeq === undefined) {
      throw new Error(
        `the run parked at step #${String(run.parkedSeq)}; only #${String(parkedSeq)} ` +
          '(notifyCustomer, at-most-once) may park it',
      );
    }
    const mails = (await this.ledger.entries()).filter((e) => e.key === noticeEffect(ORDER_ID));
    // resolveStep() and retry() claim the run for the runtime that calls them and execute the
    // rest of it there, in this test process, out of reach of the kills. So the operator's
    // runtime is closed at once: the close hands the run back (`pending`), at its first step
    // boundary or before it has loaded its history, and the next child claims it. No step
    // body runs here: the checks fail on a body logged with this process's pid.
    const scope = container.createChildContainer();
    scope.register(MIXED_ENV, { useValue: mixedEnv(this.logPath, this.ledger) });
    const operator = await Waymark.create({
      database: this.database,
      workerId: HARNESS_WORKER_ID,
      container: scope,
    });
    try {
      operator.register(MixedOrder);
      const [mail] = mails;
      if (mail) {
        const value: Stamped = { value: mail.detail ?? '', pid: mail.pid };
        await operator.resolveStep(RUN_ID, value);
        this.resolutions++;
        this.transcript.push(`resolveStep: mail ${value.value} was sent by pid ${mail.pid}`);
      } else {
        await operator.retry(RUN_ID);
        this.operatorRetries++;
        this.transcript.push('retry: no mail in the provider log');
      }
    } finally {
      await operator.close({ grace: 0 });
    }
    const after = await this.observer.handle(RUN_ID).describe();
    this.transcript.push(`operator closed: run ${after.status}, owner ${String(after.owner)}`);
  }

  private async describe(): Promise<RunSummary | undefined> {
    try {
      return await this.observer.handle(RUN_ID).describe();
    } catch (error) {
      if (error instanceof RunNotFoundError) return undefined;
      throw error;
    }
  }
}

function endingOf(child: WorkerProcess): ChildEnding {
  const endings: ChildEnding[] = ['result', 'released', 'parked'];
  const ending = endings.find((e) =>
    child.lines.some((line) => line.startsWith(`${e} `) || line === e),
  );
  if (!ending) throw child.failure('exited 0 without reporting how the run ended');
  return ending;
}
