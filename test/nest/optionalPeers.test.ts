import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = resolve(__dirname, '..', '..');

/**
 * Loads `entry` in a fresh Node process in which `@nestjs/*` cannot be resolved, as in an
 * application that does not install them; prints `loaded` or the error.
 */
async function loadWithoutNest(entry: string): Promise<string> {
  const script = `
    const Module = require('node:module');
    const resolveFilename = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request.startsWith('@nestjs/')) throw new Error('Cannot find module ' + request);
      return resolveFilename.call(this, request, ...rest);
    };
    try {
      require(${JSON.stringify(entry)});
      console.log('loaded');
    } catch (error) {
      console.log(error.message);
    }
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['-r', '@swc-node/register', '-e', script],
    { cwd: REPO_ROOT },
  );
  return stdout.trim();
}

describe('@nestjs/* are optional peer dependencies', () => {
  it('importing waymark does not load them', async () => {
    await expect(loadWithoutNest('./src/index.ts')).resolves.toBe('loaded');
  });

  it('importing waymark/nest does', async () => {
    await expect(loadWithoutNest('./src/nest/index.ts')).resolves.toMatch(
      /^Cannot find module @nestjs\//,
    );
  });
});
