import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('the README quickstart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-quickstart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (): string =>
    execFileSync(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'quickstart.ts')], {
      env: { ...process.env, WAYMARK_DATABASE_URL: `sqlite:${join(dir, 'quickstart.db')}` },
      encoding: 'utf8',
    });

  it('runs as pasted and returns the stored result the second time, running no step', () => {
    expect(run()).toBe(
      'running search\nrunning read\nrunning summarize\n' +
        '1 source(s), run research-durable-execution\n',
    );
    expect(run()).toBe('1 source(s), run research-durable-execution\n');
  });
});
