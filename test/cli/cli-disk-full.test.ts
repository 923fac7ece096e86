import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waymark } from './support/waymarkCli';

/**
 * A file system too small for waymark's tables: a tmpfs of 96 KiB holds a new SQLite file
 * (one page) and its WAL's first frames, then the first migration's writes fail with
 * SQLITE_FULL, as on a full disk. Mounting needs root (the test servers are installed as
 * root too); without it the suite fails and says so.
 */
describe('waymark migrate on a full disk', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'waymark-full-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96k', 'tmpfs', dir], { stdio: 'pipe' });
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        `mounting a 96 KiB tmpfs on ${dir} failed; this suite needs root: ${(error as Error).message}`,
        { cause: error },
      );
    }
  });
  afterAll(() => {
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 3, as for a database that cannot take writes, naming the database and its answer', async () => {
    const db = `sqlite:${join(dir, 'waymark.db')}`;
    const result = await waymark(['migrate'], { db });
    expect(result.stderr.trim().split('\n')).toEqual([
      `error: database ${db} cannot take writes (disk full): SqliteError: database or disk is full`,
    ]);
    expect(result.code).toBe(3);
  });
});
