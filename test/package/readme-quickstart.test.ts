import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packTarball, type PackedTarball } from './support/packTarball';
import { readmeBlock } from './support/readme';

/**
 * The README, verbatim: the packed tarball installed with the Install section's commands
 * into an empty project, its tsconfig, the Quickstart compiled with plain tsc, run, killed
 * with SIGKILL mid-run and run again. Slow (npm install builds better-sqlite3), so it is one
 * test file that does each step once.
 */

/** Prints the runtime's step events as JSON lines on stderr, and SIGKILLs after N completed steps. */
const OBSERVER = `
const waymark = require('waymark');
const create = waymark.Waymark.create;
const killAfter = Number(process.env.KILL_AFTER_STEPS || 0);
let completed = 0;
const report = (event) => process.stderr.write('waymark-event ' + JSON.stringify(event) + '\\n');
waymark.Waymark.create = async function (...args) {
  const runtime = await create.apply(this, args);
  runtime.on('step.started', (e) => report({ event: 'started', step: e.step }));
  runtime.on('step.replayed', (e) => report({ event: 'replayed', step: e.step }));
  runtime.on('step.completed', (e) => {
    report({ event: 'completed', step: e.step });
    if (killAfter && ++completed === killAfter) process.kill(process.pid, 'SIGKILL');
  });
  return runtime;
};
`;

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

    it('compiles the Quickstart with plain tsc', () => {
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
      const killed = await node(['-r', './observer.cjs', quickstart], project, {
        KILL_AFTER_STEPS: '2',
      });
      expect(killed.signal).toBe('SIGKILL');
      const done = killed.events.filter((e) => e.event === 'completed').map((e) => e.step);
      expect(done).toHaveLength(2);

      const resumed = await node(['-r', './observer.cjs', quickstart], project);
      // It may warn that a stopped process left the run running; it must not fail.
      expect({ code: resumed.code, stderr: resumed.stderr }).toEqual({
        code: 0,
        stderr: expect.not.stringMatching(/Error/),
      });
      expect(resumed.stdout).toBe('1 source(s), run research-durable-execution\n');
      expect(resumed.events.filter((e) => e.event === 'replayed').map((e) => e.step)).toEqual(done);
      const ran = resumed.events.filter((e) => e.event === 'started').map((e) => e.step);
      expect(ran.length).toBeGreaterThan(0);
      expect(ran.some((step) => done.includes(step))).toBe(false);

      // A third run returns the stored result without executing or replaying anything.
      const again = await node(['-r', './observer.cjs', quickstart], project);
      expect(again.stdout).toBe(resumed.stdout);
      expect(again.events).toEqual([]);
    }, 240_000);
  });
});
