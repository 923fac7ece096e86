import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';

const REPO = resolve(__dirname, '../../..');

/**
 * The CLI from source: `dist/cli/main.js` is what the package's bin runs, but the fixture
 * modules import `waymark`, which `@swc-node/register` maps to `src/`. A built bin would
 * load `dist/` beside it — a second copy of the decorator registries, so `worker` and `check`
 * would find no workflows — and would need a build before every test run.
 */
const ENTRY = ['-r', '@swc-node/register', 'src/cli/main.ts'];

/** How a `waymark` process ended, and what it printed. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of one `waymark` call. */
export interface CliOptions {
  /** Passed as `--db`. */
  db?: string;
  /** Added to the environment, which otherwise has no `WAYMARK_DATABASE_URL`. */
  env?: Record<string, string>;
  /** The process is killed after this long; default 30 s. */
  timeoutMs?: number;
}

function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  if (!('WAYMARK_DATABASE_URL' in extra)) delete env.WAYMARK_DATABASE_URL;
  return env;
}

function spawnCli(
  args: readonly string[],
  options: CliOptions,
): ChildProcessByStdio<null, Readable, Readable> {
  const db = options.db === undefined ? [] : ['--db', options.db];
  return spawn(process.execPath, [...ENTRY, ...db, ...args], {
    cwd: REPO,
    env: environment(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `waymark …args` in a child process to its end; killed after `timeoutMs` (30 s). */
export function waymark(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawnCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const watchdog = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) => {
      clearTimeout(watchdog);
      done({ code, stdout, stderr });
    });
  });
}

/**
 * Runs `waymark …args | <pipe>` in bash with `pipefail`, so `code` is waymark's exit code
 * (or the pipe command's when that failed). `stderr` is waymark's.
 */
export function waymarkPiped(
  args: readonly string[],
  pipe: string,
  options: CliOptions = {},
): Promise<CliResult> {
  const db = options.db === undefined ? [] : ['--db', options.db];
  const quote = (word: string): string => `'${word.replace(/'/g, "'\\''")}'`;
  const command = [process.execPath, ...ENTRY, ...db, ...args].map(quote).join(' ');
  const child = spawn('bash', ['-c', `set -o pipefail; ${command} | ${pipe}`], {
    cwd: REPO,
    env: environment(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const watchdog = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code) => {
      clearTimeout(watchdog);
      done({ code, stdout, stderr });
    });
  });
}

/** A long-running `waymark worker` whose output can be waited on line by line. */
export class WorkerCli {
  private stdout = '';
  private stderr = '';
  private readonly exited: Promise<CliResult>;
  private readonly child: ChildProcessByStdio<null, Readable, Readable>;
  private readonly watchdog: NodeJS.Timeout;

  constructor(args: readonly string[], options: CliOptions) {
    this.child = spawnCli(['worker', ...args], options);
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.watchdog = setTimeout(() => this.child.kill('SIGKILL'), 40_000);
    this.exited = new Promise((done, fail) => {
      this.child.once('error', fail);
      this.child.once('close', (code) => {
        clearTimeout(this.watchdog);
        done({ code, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  /** Resolves once stdout has every one of `patterns`; rejects after `timeoutMs`. */
  async waitFor(patterns: readonly RegExp[], timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!patterns.every((p) => p.test(this.stdout))) {
      if (Date.now() > deadline || this.child.exitCode !== null) {
        const missing = patterns.filter((p) => !p.test(this.stdout)).join(', ');
        throw new Error(
          `worker output lacks ${missing}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Sends SIGTERM and waits for the process to end. */
  stop(): Promise<CliResult> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}
