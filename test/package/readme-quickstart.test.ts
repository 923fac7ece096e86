import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packTarball, type PackedTarball } from './support/packTarball';
import { readmeBlock, readmeSection } from './support/readme';

/**
 * The README, verbatim: the packed tarball installed with the Install section's commands
 * into an empty project, its tsconfig, the Quickstart compiled with plain tsc, run, killed
 * with SIGKILL mid-run and run again, each printing what the Quickstart's commands say. Slow
 * (npm install builds better-sqlite3), so it is one test file that does each step once.
 */

/**
 * Prints the runtime's step events as JSON lines on stderr, and SIGKILLs the process once it
 * printed the line KILL_AFTER_LINE (stdout to a pipe is written synchronously on Linux).
 */
const OBSERVER = `
const waymark = require('waymark');
const create = waymark.Waymark.create;
const killAfter = process.env.KILL_AFTER_LINE;
const report = (event) => process.stderr.write('waymark-event ' + JSON.stringify(event) + '\\n');
waymark.Waymark.create = async function (...args) {
  const runtime = await create.apply(this, args);
  runtime.on('step.started', (e) => report({ event: 'started', step: e.step }));
  runtime.on('step.replayed', (e) => report({ event: 'replayed', step: e.step }));
  runtime.on('step.completed', (e) => report({ event: 'completed', step: e.step }));
  return runtime;
};
if (killAfter) {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    const written = write(chunk, ...rest);
    if (String(chunk).includes(killAfter)) process.kill(process.pid, 'SIGKILL');
    return written;
  };
}
`;

/** The Quickstart's shell block, line by line: the command, and what its comment says it prints. */
const commands = readmeBlock('Quickstart', 'sh')
  .trimEnd()
  .split('\n')
  .map((line) => {
    const [command, says = ''] = line.split(/\s+#\s+/);
    return { command: command.trim(), says };
  });

/** The lines a run printed on stdout. */
function printed(run: Run): string[] {
  return run.stdout.split('\n').filter((line) => line !== '');
}

/** The README's comment on a command names every line that command printed. */
function expectSaid(said: { command: string; says: string }, run: Run): void {
  for (const line of printed(run))
    expect({ said: said.says, line }).toEqual({
      said: expect.stringContaining(line),
      line,
    });
}

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly events: Array<{ event: string; step: string }>;
}

function node(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        code,
        signal,
        stdout,
        stderr,
        events: stderr
          .split('\n')
          .filter((line) => line.startsWith('waymark-event '))
          .map((line) => JSON.parse(line.slice('waymark-event '.length))),
      }),
    );
  });
}

/** `npm …` in `cwd`; the dependencies come from the npm cache the repository's install filled. */
function npm(args: string[], cwd: string): string {
  const run = spawnSync('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
  });
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0) throw new Error(`npm ${args.join(' ')} failed:\n${output}`);
  return output;
}

describe('the README, as a new user follows it', () => {
  let packed: PackedTarball;
  let app: string;
  let installOutput = '';
  beforeAll(() => {
    packed = packTarball();
    app = join(packed.dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'readme-app', private: true }));
    for (const line of readmeBlock('Install', 'sh').split('\n')) {
      const [command, ...words] = line.replace(/#.*/, '').trim().split(/\s+/);
      if (command !== 'npm' || words.includes('pg')) continue; // pg: "only for PostgreSQL"
      installOutput += npm(
        words.map((word) => (word === 'waymark' ? packed.tarball : word)),
        app,
      );
    }
  }, 600_000); // npm pack, then npm install, which builds better-sqlite3 when it cannot download it
  afterAll(() => packed?.remove());

  it('installs without building waymark and without pg', () => {
    expect(installOutput).not.toContain('waymark@'); // no prepare/install script of waymark to run
    expect(existsSync(join(app, 'node_modules', 'waymark', 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'pg'))).toBe(false);
  });

  it('explains in Install the install-script warning npm prints for better-sqlite3', () => {
    // npm 11 prints it (install scripts need approval); npm 10 does not, and has nothing to explain.
    const warned = /install-scripts[^\n]*\n[^\n]*better-sqlite3/.test(installOutput);
    const explained = readmeSection('Install').includes(
      'npm install-scripts approve better-sqlite3',
    );
    expect({ warned, explained: warned && explained }).toEqual({ warned, explained: warned });
  });

  describe.each([
    ['CommonJS', 'cjs', {}],
    ['ESM ("type": "module")', 'esm', { type: 'module' }],
  ])('in %s', (_, folder, packageJson) => {
    let project: string;
    beforeAll(() => {
      project = join(app, folder);
      mkdirSync(join(project, 'src'), { recursive: true });
      writeFileSync(join(project, 'package.json'), JSON.stringify(packageJson));
      writeFileSync(join(project, 'tsconfig.json'), readmeBlock('Install', 'json'));
      writeFileSync(join(project, 'src', 'quickstart.ts'), readmeBlock('Quickstart', 'ts'));
      writeFileSync(join(project, 'observer.cjs'), OBSERVER);
    });

    it('compiles the Quickstart with plain tsc, as its commands say', () => {
      expect(commands[0]).toEqual({ command: 'npx tsc', says: '' });
      const tsc = spawnSync(
        process.execPath,
        [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project],
        { encoding: 'utf8' },
      );
      expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
      expect(tsc.status).toBe(0);
    });

    it('resumes after SIGKILL: completed steps are skipped, the rest runs, the result is stored', async () => {
      const quickstart = join('dist', 'quickstart.js');
      // "node dist/quickstart.js & sleep 2; kill -9 $!": killed while read() waits, here once it
      // said so rather than after a guessed delay.
      expect(commands[1].command).toBe('node dist/quickstart.js & sleep 2; kill -9 $!');
      const killed = await node(['-r', './observer.cjs', quickstart], project, {
        KILL_AFTER_LINE: 'running read',
      });
      expect(killed.signal).toBe('SIGKILL');
      const done = killed.events.filter((e) => e.event === 'completed').map((e) => e.step);
      expect(done).toEqual(['search']);
      expect(printed(killed)).toEqual(['running search', 'running read']);
      expectSaid(commands[1], killed);

      expect(commands[2].command).toBe('node dist/quickstart.js');
      const resumed = await node(['-r', './observer.cjs', quickstart], project);
      // It may warn that a stopped process left the run running; it must not fail.
      expect({ code: resumed.code, stderr: resumed.stderr }).toEqual({
        code: 0,
        stderr: expect.not.stringMatching(/Error/),
      });
      expect(printed(resumed)).toEqual([
        'running read',
        'running summarize',
        '1 source(s), run research-durable-execution',
      ]);
      expectSaid(commands[2], resumed);
      expect(resumed.events.filter((e) => e.event === 'replayed').map((e) => e.step)).toEqual(done);
      const ran = resumed.events.filter((e) => e.event === 'started').map((e) => e.step);
      expect(ran).toEqual(['read', 'summarize']);

      // A third run returns the stored result without executing or replaying anything.
      expect(commands[3].command).toBe('node dist/quickstart.js');
      const again = await node(['-r', './observer.cjs', quickstart], project);
      expect(printed(again)).toEqual(['1 source(s), run research-durable-execution']);
      expectSaid(commands[3], again);
      expect(again.events).toEqual([]);
    }, 240_000);
  });
});
