import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/** The heavy modules a process that only imports waymark must not load yet. */
const DEFERRED = [
  'typeorm',
  'class-validator',
  'mysql2',
  'pg',
  'better-sqlite3',
  'commander',
  'ai',
  '@openai/agents',
];

/** Which of `DEFERRED` a fresh Node process has loaded after running `script`. */
function loadedAfter(script: string): string[] {
  const probe =
    `${script};` +
    `const names = ${JSON.stringify(DEFERRED)};` +
    'const loaded = Object.keys(require.cache);' +
    "console.log(JSON.stringify(names.filter((n) => loaded.some((p) => p.includes('/node_modules/' + n + '/')))));";
  const out = execFileSync(process.execPath, ['-r', '@swc-node/register', '-e', probe], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

describe('start-up cost of importing waymark', () => {
  it('importing waymark loads neither TypeORM, class-validator, nor any database driver', () => {
    expect(loadedAfter("require('reflect-metadata'); require('./src/index.ts')")).toEqual([]);
  });

  it('decorating a method without options loads nothing more; options load class-validator only', () => {
    const decorate = (options: string) =>
      "require('reflect-metadata'); const { Step } = require('./src/index.ts');" +
      `class A { m() { return Promise.resolve(1); } } Step(${options})(A.prototype, 'm', Object.getOwnPropertyDescriptor(A.prototype, 'm'))`;
    expect(loadedAfter(decorate(''))).toEqual([]);
    expect(loadedAfter(decorate("{ timeout: '5s' }"))).toEqual(['class-validator']);
  });
});
