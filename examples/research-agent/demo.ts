/**
 * The crash-and-resume demo (`npm run demo`). Starts a worker process on a fresh SQLite
 * file, kills it with SIGKILL once two steps are checkpointed, starts a second worker on
 * the same file, and checks that it skipped exactly the checkpointed steps and returned
 * what an uninterrupted run returns. Exits non-zero if anything is off.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { isDeepStrictEqual } from 'node:util';

const ROOT = resolve(__dirname, '..', '..');
const WORKER = join(__dirname, 'worker.ts');
const KILL_AFTER_STEPS = 2;
/** Only a safety net for a hung worker; the demo itself never waits on a timer. */
const WORKER_DEADLINE_MS = 30_000;

/** What one worker process printed, and how it ended. */
interface WorkerReport {
  pid: number;
  ran: string[];
  skipped: string[];
  result: unknown;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

interface WorkerOptions {
  /** Relay the worker's lines to this process's output, under this heading. */
  heading?: string;
  /** Called after each step line (`ran` or `skipped`); may kill the worker. */
  onStep?: (report: WorkerReport, kill: () => void) => void;
}

/** Runs `worker.ts` on `database` and resolves when the process has ended. */
function runWorker(database: string, options: WorkerOptions = {}): Promise<WorkerReport> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', WORKER, database], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const report: WorkerReport = {
    pid: child.pid ?? -1,
    ran: [],
    skipped: [],
    result: undefined,
    code: null,
    signal: null,
    stderr: '',
  };
  if (options.heading) console.log(`▶ ${options.heading} (pid ${report.pid})`);
  const kill = (): void => void child.kill('SIGKILL');
  const deadline = setTimeout(kill, WORKER_DEADLINE_MS);
  child.stderr.on('data', (chunk: Buffer) => (report.stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const [, what = '', rest = ''] = /^\s*(\S+)\s+(.*)$/.exec(line) ?? [];
    if (what === 'result') {
      report.result = parseJson(rest);
      return;
    }
    if (options.heading) console.log(line);
    if (what === 'ran' || what === 'skipped') {
      report[what].push(rest.split(' ')[0]);
      options.onStep?.(report, kill);
    }
  });
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      done({ ...report, code, signal });
    }),
  );
}

async function demo(dir: string): Promise<string[]> {
  const database = join(dir, 'research.db');
  console.log('waymark demo: a research agent that survives SIGKILL\n');
  console.log('A worker process runs the "research" workflow: plan → searchWeb → readSources →');
  console.log('summarize, checkpointing each step in SQLite. After two steps we kill it with');
  console.log('SIGKILL; a new worker on the same file skips what was saved and runs the rest.\n');
  console.log(`database: ${database} (fresh, deleted at the end)\n`);

  // The reference runs meanwhile, on a database of its own, and is never interrupted.
  const reference = runWorker(join(dir, 'reference.db'));

  const killed = await runWorker(database, {
    heading: 'worker 1 starts the run',
    onStep: (report, kill) => {
      if (report.ran.length === KILL_AFTER_STEPS) kill();
    },
  });
  const ending = killed.signal ? `signal ${killed.signal}` : `exit code ${String(killed.code)}`;
  console.log(
    killed.signal === 'SIGKILL'
      ? `✖ killed worker 1 with SIGKILL right after step ${KILL_AFTER_STEPS} was checkpointed ` +
          `(it ended by ${ending})\n`
      : `✖ worker 1 was to be killed after step ${KILL_AFTER_STEPS}, but it ended by ${ending}\n`,
  );

  const resumed = await runWorker(database, {
    heading: 'worker 2 calls research() again, on the same database',
  });
  console.log(`  summary  ${summaryOf(resumed.result)}\n`);

  const uninterrupted = await reference;
  console.log('▶ reference: worker 3 ran the same call uninterrupted, on a separate database');
  console.log(`  ran      ${uninterrupted.ran.join(', ')}`);
  console.log(`  summary  ${summaryOf(uninterrupted.result)}\n`);

  const problems = problemsOf(killed, resumed, uninterrupted);
  if (problems.length === 0) {
    console.log(
      `✔ ${resumed.skipped.length} steps skipped (${resumed.skipped.join(', ')}), ` +
        `${resumed.ran.length} ran (${resumed.ran.join(', ')}); ` +
        `the result is identical to the uninterrupted run's.`,
    );
  }
  return problems;
}

/** Everything that would make the demo a lie, as messages; empty when all is well. */
function problemsOf(
  killed: WorkerReport,
  resumed: WorkerReport,
  uninterrupted: WorkerReport,
): string[] {
  const problems: string[] = [];
  const list = (steps: string[]): string => `[${steps.join(', ')}]`;
  if (killed.signal !== 'SIGKILL') {
    problems.push(`worker 1 was not killed (code ${String(killed.code)}): ${killed.stderr}`);
  }
  if (killed.ran.length !== KILL_AFTER_STEPS) {
    problems.push(`worker 1 completed ${list(killed.ran)}, expected ${KILL_AFTER_STEPS} steps`);
  }
  for (const [name, worker] of [
    ['worker 2', resumed],
    ['worker 3', uninterrupted],
  ] as const) {
    if (worker.code !== 0) {
      const ending = worker.signal ?? `code ${String(worker.code)}`;
      problems.push(`${name} exited with ${ending}: ${worker.stderr}`);
    }
  }
  const again = resumed.ran.filter((step) => killed.ran.includes(step));
  if (again.length > 0) problems.push(`checkpointed steps ran again: ${list(again)}`);
  if (!isDeepStrictEqual(resumed.skipped, killed.ran)) {
    problems.push(`worker 2 skipped ${list(resumed.skipped)}, expected ${list(killed.ran)}`);
  }
  const taken = [...resumed.skipped, ...resumed.ran];
  if (uninterrupted.ran.length === 0 || !isDeepStrictEqual(taken, uninterrupted.ran)) {
    problems.push(`worker 2 took ${list(taken)}, the reference ${list(uninterrupted.ran)}`);
  }
  if (
    uninterrupted.result === undefined ||
    !isDeepStrictEqual(resumed.result, uninterrupted.result)
  ) {
    problems.push('the resumed run returned another result than the uninterrupted one');
  }
  return problems;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function summaryOf(result: unknown): string {
  return JSON.stringify((result as { summary?: unknown } | undefined)?.summary ?? null);
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-demo-'));
  try {
    const problems = await demo(dir);
    for (const problem of problems) console.error(`✖ ${problem}`);
    return problems.length === 0 ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
