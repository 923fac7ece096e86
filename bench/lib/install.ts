/**
 * Installs the peers (bench/package.json) on first use, so a fresh clone needs only the
 * root `npm install` before `npm run bench`. `npm ci` runs again only when
 * bench/package-lock.json changed since the last install. bench/package.json links `pg` and
 * `better-sqlite3` to the root's copies (nothing is compiled, and one copy of each driver is
 * loaded); `--ignore-scripts` keeps npm from rebuilding the root's better-sqlite3 through
 * that link.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const BENCH_DIR = join(__dirname, '..');

export function ensurePeersInstalled(): void {
  const lock = readFileSync(join(BENCH_DIR, 'package-lock.json'));
  const digest = createHash('sha256').update(lock).digest('hex');
  const stamp = join(BENCH_DIR, 'node_modules', '.waymark-bench-installed');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  console.error('Installing the peers in bench/node_modules (npm ci, once)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: BENCH_DIR,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    throw new Error(
      `npm ci in bench/ failed (exit ${String(result.status)}); run it there by hand`,
    );
  }
  writeFileSync(stamp, digest);
}

/**
 * Type-checks bench/ against the peers' own types (the root's `npm test` cannot: a fresh
 * clone has no peers installed), so a peer's changed API fails here, not halfway through.
 */
export function typecheckBench(): void {
  const tsc = join(BENCH_DIR, '..', 'node_modules', '.bin', 'tsc');
  const result = spawnSync(tsc, ['-p', join(BENCH_DIR, 'tsconfig.json')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error('bench/ does not type-check (tsc -p bench)');
}

/** Installed version of a package, as bench/ resolves it (peers first, then the root's). */
export function versionOf(name: string): string {
  for (const dir of [BENCH_DIR, join(BENCH_DIR, '..')]) {
    const path = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(path))
      return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
  }
  return 'not installed';
}
