import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './support/compileWithTsc';
import { readmeBlock, scriptFolder } from './support/readme';

const HEADING = 'Schedules, deadlines, fan-out and retention';

describe(`README "${HEADING}"`, () => {
  const folder = scriptFolder('readme-schedules');

  it('runs as written: the schedule is stored, the delayed run waits, the fan-out returns in order', () => {
    const database = `sqlite:${join(folder(), 'waymark.db')}`;
    const block = readmeBlock(HEADING, 'ts').replace(
      "'sqlite:./waymark.db'",
      JSON.stringify(database),
    );
    expect(block).toContain(database);
    const script = [
      "import 'reflect-metadata';",
      "import { injectable } from 'tsyringe';",
      "import { Step, Waymark, Workflow, WorkflowContext } from 'waymark';",
      'async function main(): Promise<void> {',
      block,
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
