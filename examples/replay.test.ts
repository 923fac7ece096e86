import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('the replay guide example', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-replay-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replays the run with a corrected step: the unchanged model call is not made again', () => {
    const out = execFileSync(
      process.execPath,
      ['-r', '@swc-node/register', join(__dirname, 'replay.ts')],
      {
        env: { ...process.env, WAYMARK_DATABASE_URL: `sqlite:${join(dir, 'replay.db')}` },
        encoding: 'utf8',
      },
    );
    expect(out).toBe(
      'changed: true\n' +
        'steps that differ: #0 facts, #2 model:demo\n' +
        'model calls replayed 1, called 2\n' +
        'models called in all: 3\n',
    );
  });
});
