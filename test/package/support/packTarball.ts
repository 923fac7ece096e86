import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './compileWithTsc';

/** What the package is built and packed from: everything `files` ships, and what builds it. */
const PACKAGE_SOURCES = [
  'package.json',
  'README.md',
  'LICENSE',
  'tsconfig.json',
  'tsconfig.build.json',
  'src',
];

/** A packed `waymark-<version>.tgz`, and the folder to remove when done. */
export interface PackedTarball {
  readonly tarball: string;
  readonly dir: string;
  remove(): void;
}

/**
 * Runs `npm pack` (and with it the `prepack` build) on a copy of the package's sources in a
 * temporary folder, exactly as `npm publish` would pack it, so that test files packing at the
 * same time never rebuild the repository's own `dist/` under each other.
 */
export function packTarball(): PackedTarball {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-pack-'));
  const copy = join(dir, 'waymark');
  for (const entry of PACKAGE_SOURCES) {
    cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], {
    cwd: copy,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${dir}`);
  return {
    tarball: join(dir, tarball),
    dir,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
