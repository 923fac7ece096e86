import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = resolve(__dirname, '..', '..');

/**
 * Runs `script` (CommonJS, from the repository root, TypeScript loaded) in a fresh Node process
 * in which the packages `hidden` (and their subpaths) cannot be resolved: `require()` throws
 * Node's own error for them (code MODULE_NOT_FOUND, "Cannot find module '<name>'"), as in an
 * application that does not install them. Resolves with what the script printed, trimmed.
 */
export async function runWithoutPackages(
  hidden: readonly string[],
  script: string,
): Promise<string> {
  const hook = `
    const Module = require('node:module');
    const hidden = ${JSON.stringify(hidden)};
    const resolveFilename = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (hidden.some((name) => request === name || request.startsWith(name + '/'))) {
        const error = new Error("Cannot find module '" + request + "'");
        error.code = 'MODULE_NOT_FOUND';
        throw error;
      }
      return resolveFilename.call(this, request, ...rest);
    };
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['-r', '@swc-node/register', '-e', `${hook}\n${script}`],
    { cwd: REPO_ROOT },
  );
  return stdout.trim();
}

/** A script that runs `body` and prints `ok`, or the message of what it threw. */
export function printOutcome(body: string): string {
  return `
    try {
      ${body}
      console.log('ok');
    } catch (error) {
      console.log(error.name + ': ' + error.message);
    }
  `;
}
