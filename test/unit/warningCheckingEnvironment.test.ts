import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const REPO = resolve(__dirname, '../..');
const FIXTURES = 'test/support/fixtures/warnings';

/** Runs jest, with the project's config, on one fixture file; returns its exit code and output. */
function jestOn(fixture: string): { code: number | null; output: string } {
  const run = spawnSync(
    process.execPath,
    [
      require.resolve('jest/bin/jest'),
      '--config',
      'jest.config.js',
      '--testMatch',
      `**/${FIXTURES}/*.fixture.ts`,
      '--runTestsByPath',
      `${FIXTURES}/${fixture}`,
    ],
    { cwd: REPO, encoding: 'utf8', timeout: 60_000 },
  );
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("the suite's jest environment", () => {
  it('fails a green test file that printed a waymark warning, naming it', () => {
    const { code, output } = jestOn('prints-a-warning.fixture.ts');
    expect(code).toBe(1);
    expect(output).toContain('this test file printed 1 waymark warning(s)');
    expect(output).toContain('[waymark] a warning nobody asked for');
  }, 60_000);

  it('fails a green test file that leaves a child process running', () => {
    const { code, output } = jestOn('leaves-a-child.fixture.ts');
    expect(code).toBe(1);
    expect(output).toContain('this test file left 1 child process(es) running 5000 ms after');
  }, 60_000);

  it('passes a file that kills its child process as it ends', () => {
    const { code, output } = jestOn('reaps-its-child.fixture.ts');
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('PASS') });
  }, 60_000);

  it('passes a file whose docblock says @waymark-warnings expected', () => {
    const { code, output } = jestOn('expects-a-warning.fixture.ts');
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('PASS') });
  }, 60_000);
});
