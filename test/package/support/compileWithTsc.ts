import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The repository root. */
export const ROOT = join(__dirname, '..', '..', '..');

/** The TypeScript compilers the project checks against: the pinned 5.9 and the newest major. */
export const COMPILERS = {
  'typescript 5.9': join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
  'typescript latest': join(ROOT, 'node_modules', 'typescript-next', 'bin', 'tsc'),
} as const;

/** One of {@link COMPILERS}. */
export type Compiler = keyof typeof COMPILERS;

/** What one `tsc -p` run printed, and where it put a source file's JavaScript. */
export interface Compilation {
  readonly status: number | null;
  readonly output: string;
  /** The emitted `.js` of `file` (a name given to {@link compileWithTsc}). */
  emitted(file: string): string;
}

let workspace: string | undefined;

/**
 * A temporary folder whose `node_modules` is the repository's and whose `types/` holds the
 * declarations of the repository's `src/` (emitted once per test file), so a compile resolves
 * `waymark` without a build of the package and without checking all of `src/` again.
 */
function tscWorkspace(): string {
  if (workspace) return workspace;
  const dir = mkdtempSync(join(tmpdir(), 'waymark-tsc-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const declarations = spawnSync(
    process.execPath,
    [
      COMPILERS['typescript 5.9'],
      ...[
        '-p',
        join(ROOT, 'tsconfig.build.json'),
        '--emitDeclarationOnly',
        '--sourceMap',
        'false',
        '--inlineSources',
        'false',
      ],
      ...['--outDir', join(dir, 'types')],
    ],
    { encoding: 'utf8' },
  );
  if (declarations.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `emitting src/ declarations failed:\n${declarations.stdout}${declarations.stderr}`,
    );
  }
  workspace = dir;
  return dir;
}

/** Removes the temporary folder of this test file's compiles (call it in `afterAll`). */
export function removeTscWorkspace(): void {
  if (workspace) rmSync(workspace, { recursive: true, force: true });
  workspace = undefined;
}

/**
 * Compiles `files` (name → source) with plain `tsc -p` in a fresh temporary folder, under
 * `compilerOptions` as a user's tsconfig.json would set them. `waymark` (and `waymark/testing`,
 * `waymark/ai`, …) type-checks against the declarations of the repository's `src/`; the emitted CommonJS runs in jest, whose
 * moduleNameMapper sends `waymark` to the same `src/` the test imports.
 */
export function compileWithTsc(
  compiler: Compiler,
  files: Record<string, string>,
  compilerOptions: Record<string, unknown>,
): Compilation {
  const base = tscWorkspace();
  const dir = mkdtempSync(join(base, 'compile-'));
  const sources = join(dir, 'src');
  mkdirSync(sources);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(sources, name), text);
  const out = join(dir, 'out');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'commonjs',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
        rootDir: sources,
        outDir: out,
        paths: {
          waymark: [join(base, 'types', 'index.d.ts')],
          'waymark/*': [join(base, 'types', '*', 'index.d.ts')],
        },
        ...compilerOptions,
      },
      files: Object.keys(files).map((name) => join(sources, name)),
    }),
  );
  const run = spawnSync(process.execPath, [COMPILERS[compiler], '-p', dir], { encoding: 'utf8' });
  return {
    status: run.status,
    output: `${run.stdout}${run.stderr}`,
    emitted: (file) => join(out, file.replace(/\.ts$/, '.js')),
  };
}
