import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './support/compileWithTsc';
import { docBlock } from '../docs/support/docBlocks';
import { scriptFolder } from './support/readme';

const PAGE = 'guides/schedules.md';

describe(`docs/${PAGE}`, () => {
  const folder = scriptFolder('docs-schedules');

  it('runs as written: the schedule is stored, the delayed run waits, the fan-out returns in order', () => {
    const database = `sqlite:${join(folder(), 'waymark.db')}`;
    const block = docBlock(PAGE, 'ts').replace("'sqlite:./waymark.db'", JSON.stringify(database));
    expect(block).toContain(database);
    // The block's imports stay at the top; the rest (top-level await) runs inside main().
    const lines = block.split('\n');
    const script = [
      ...lines.filter((line) => line.startsWith('import ')),
      'async function main(): Promise<void> {',
      ...lines.filter((line) => !line.startsWith('import ')),
      'const [schedule] = await runtime.schedules();',
      "const fanned = await runtime.run(Reports, 'nightly', ['txt']);",
      'const waiting = (await runtime.list({ status: "waiting" })).runs.length;',
      'console.log(JSON.stringify({ schedule: schedule.name, next: schedule.nextAt, fanned, waiting }));',
      'await runtime.close();',
      '}',
      'void main();',
    ].join('\n');
    const file = join(folder(), 'schedules.ts');
    writeFileSync(file, script);
    const output = execFileSync(process.execPath, ['-r', '@swc-node/register', file], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    const printed = JSON.parse(output.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(printed).toMatchObject({
      schedule: 'nightly-report',
      fanned: ['eu.txt', 'us.txt', 'apac.txt'],
      waiting: 1,
    });
    expect(String(printed.next)).toMatch(/T0[01]:00:00.000Z$/);
  });
});
