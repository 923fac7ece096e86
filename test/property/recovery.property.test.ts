import * as fc from 'fast-check';
import { container as rootContainer } from 'tsyringe';
import {
  createTestRuntime,
  isSimulatedCrash,
  type CrashPoint,
  type SimulatedCrash,
  type TestRuntime,
} from 'waymark/testing';
import {
  checkExecutions,
  checkOutcome,
  checkValues,
  describeRecord,
  type Life,
  type Recovered,
  type Reference,
} from './support/checks';
import { Interpreter, Probe, type Entry, type Program } from './support/Interpreter';
import {
  crashPlan,
  crashSpecs,
  programs,
  renderPlan,
  renderProgram,
  type CrashRule,
} from './support/programs';

/*
 * Random programs (steps, retried steps, failing steps, Promise.all groups, ctx.now/uuid),
 * each run once uninterrupted (the reference) and once on a fresh runtime crashed by 1-3
 * random crash rules, restarted and called again until it completes. The recovered run must
 * return the reference's result and store its history; see ./support/checks.ts for every
 * property checked. WAYMARK_PROPERTY_RUNS sets the number of programs (default 100);
 * to replay a failure, set WAYMARK_PROPERTY_SEED (and WAYMARK_PROPERTY_PATH) to what
 * fast-check printed.
 */
const RUNS = Number(process.env.WAYMARK_PROPERTY_RUNS ?? 100);
const SEED = process.env.WAYMARK_PROPERTY_SEED;
const PATH = process.env.WAYMARK_PROPERTY_PATH;
if (!Number.isInteger(RUNS) || RUNS < 1) {
  throw new TypeError(`WAYMARK_PROPERTY_RUNS must be a positive integer, got ${RUNS}`);
}
/** Three rules of at most two crashes each: at most seven lives; more is a runaway. */
const MAX_LIVES = 8;

interface Family {
  readonly runtime: TestRuntime;
  readonly probe: Probe;
}

/** A test runtime on a fresh in-memory database, with a fake clock and its own probe. */
async function family(): Promise<Family> {
  const scope = rootContainer.createChildContainer();
  const probe = new Probe();
  scope.registerInstance(Probe, probe);
  const runtime = await createTestRuntime({ clock: 'fake', container: scope });
  return { runtime, probe };
}

/** Calls the workflow, jumping the fake clock over every 1 ms backoff. */
function call(runtime: TestRuntime, runId: string, program: Program): Promise<Entry[]> {
  return runtime.clock.drive(runtime.run(Interpreter, 'run', [program], { runId }));
}

/** `afterEffect Interpreter.plain (run "p-1", step #2)`, as the crash hook names it. */
function lifeEnd(crash: SimulatedCrash): Omit<Life, 'stored'> {
  const match = /^(before|afterEffect|afterCommit) \S+ \(run ".*", step #(\d+)\)$/.exec(crash.at);
  if (!match) throw new Error(`unexpected crash site: ${crash.at}`);
  return { point: match[1] as CrashPoint, seq: Number(match[2]), at: crash.at };
}

/** Crashes the run per `plan`, restarting and calling again until it completes. */
async function recover(
  runId: string,
  program: Program,
  plan: CrashRule[],
  lives: Life[],
): Promise<Recovered> {
  const { runtime: first, probe } = await family();
  let runtime = first;
  for (const { point, target, options } of plan) runtime.crash[point](target, options);
  try {
    for (;;) {
      probe.life = lives.length;
      try {
        const result = await call(runtime, runId, program);
        const executed = probe.executions.length;
        const again = await call(runtime, runId, program);
        return {
          runId,
          result,
          again,
          executedAgain: probe.executions.length - executed,
          lives,
          history: await runtime.history(runId),
          status: await runtime.handle(runId).status(),
          executions: probe.executions,
          observations: probe.observations,
          logged: runtime.executions.all().filter((e) => e.runId === runId).length,
        };
      } catch (error) {
        if (!isSimulatedCrash(error)) throw error;
        if (lives.length + 1 >= MAX_LIVES) {
          throw new Error(`still crashing after ${MAX_LIVES} lives`, { cause: error });
        }
        const end = lifeEnd(error);
        runtime = await runtime.restart();
        // A crash writes nothing: the restarted runtime finds the run still running.
        const status = await runtime.handle(runId).status();
        if (status !== 'running') {
          throw new Error(
            `life ${lives.length + 1}: the crash should leave run "${runId}" running; it is ${status}`,
            { cause: error },
          );
        }
        lives.push({ ...end, stored: await runtime.history(runId) });
      }
    }
  } finally {
    await runtime.close();
  }
}

function report(program: Program, plan: CrashRule[], lives: Life[], problems: string[]): string {
  const ends = lives.map(
    (life, i) =>
      `  life ${i}: crashed ${life.point} at #${life.seq}; stored [${life.stored.map(describeRecord).join(', ')}]`,
  );
  return [
    'a recovered run differs from the uninterrupted one',
    `program:    ${renderProgram(program)}`,
    `crash plan: ${renderPlan(plan)}`,
    ...ends,
    `  life ${lives.length}: ran to the end (or failed below)`,
    'problems:',
    ...problems.map((p) => `  - ${p}`),
  ].join('\n');
}

describe('recovery from random crashes (property)', () => {
  let reference: Family;
  let runs = 0;

  beforeAll(async () => {
    reference = await family();
  });
  afterAll(async () => {
    await reference.runtime.close();
  });

  async function uninterrupted(runId: string, program: Program): Promise<Reference> {
    const result = await call(reference.runtime, runId, program);
    return {
      result,
      history: await reference.runtime.history(runId),
      executions: reference.probe.executions.filter((e) => e.runId === runId),
    };
  }

  it(
    'a run crashed anywhere, any number of times, recovers to the uninterrupted result and history without re-running a stored step',
    async () => {
      await fc.assert(
        fc.asyncProperty(programs, crashSpecs, async (program, specs) => {
          const runId = `program-${++runs}`;
          const plan = crashPlan(program, specs);
          const lives: Life[] = [];
          const problems: string[] = [];
          try {
            const ref = await uninterrupted(runId, program);
            problems.push(...checkExecutions(program, ref, []).map((p) => `reference: ${p}`));
            const run = await recover(runId, program, plan, lives);
            problems.push(
              ...checkOutcome(program, ref, run),
              ...checkExecutions(program, run, lives),
              ...checkValues(program, run),
            );
          } catch (error) {
            problems.push(
              `threw ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
            );
          }
          if (problems.length > 0) throw new Error(report(program, plan, lives, problems));
        }),
        { numRuns: RUNS, seed: SEED === undefined ? undefined : Number(SEED), path: PATH },
      );
    },
    60_000 + RUNS * 1_000,
  );
});
