import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { CliError } from './CliError';
import { ExitCode } from './ExitCode';

const TYPESCRIPT = /\.[cm]?tsx?$/;

/**
 * Loads the module that declares an application's workflows (its decorators register them as
 * it loads). A `.ts` module is compiled on the fly by `@swc-node/register`, resolved from the
 * project in `cwd`, when it is installed there.
 *
 * @example
 * ```ts
 * loadModule('dist/workflows.js');
 * loadModule('src/workflows.ts'); // needs @swc-node/register in the project
 * ```
 */
export function loadModule(path: string, cwd: string = process.cwd()): void {
  const file = resolve(cwd, path);
  if (!existsSync(file)) {
    throw new CliError(`module ${path} not found (looked for ${file})`, ExitCode.Usage);
  }
  // `@swc-node/register` is the project's dev dependency, not waymark's: resolve it from there.
  const load = createRequire(join(cwd, 'waymark-cli.js'));
  if (TYPESCRIPT.test(file)) {
    try {
      load.resolve('@swc-node/register');
    } catch {
      throw new CliError(
        `${path} is TypeScript: install @swc-node/register in the project, or give the compiled .js file`,
        ExitCode.Usage,
      );
    }
    load('@swc-node/register');
  }
  load(file);
}
