import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './support/compileWithTsc';
import { docBlock } from '../docs/support/docBlocks';
import { scriptFolder } from './support/readme';

const PAGE = 'guides/queues.md';

describe(`docs/${PAGE}`, () => {
  const folder = scriptFolder('docs-queues');

  it('runs as written: the run goes through the queue with its tenant as key, and prints what the comment says', () => {
    const file = join(folder(), 'waymark.db');
    const block = docBlock(PAGE, 'ts').replace(
      "'sqlite:./waymark.db'",
      JSON.stringify(`sqlite:${file}`),
    );
    expect(block).toContain(file);
    // The block's imports stay at the top; the rest (top-level await) runs inside main().
    const lines = block.split('\n');
    const imports = lines.filter((l) => l.startsWith('import '));
    const body = lines.filter((l) => !l.startsWith('import '));
    const script = [
      ...imports,
      'async function main(): Promise<void> {',
      ...body,
      '}',
      'void main();',
    ];
    const path = join(folder(), 'queues.ts');
    writeFileSync(path, script.join('\n'));

    const output = execFileSync(process.execPath, ['-r', '@swc-node/register', path], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });

    const promised = /console\.log\(await handle\.result\(\)\); \/\/ (.*)$/m.exec(block)?.[1];
    expect(promised).toBeDefined();
    expect(output.trim()).toBe(promised);
    const db = new Database(file, { readonly: true });
    try {
      const runs = db
        .prepare('SELECT workflow, status, queue_name, partition_key FROM waymark_runs')
        .all();
      expect(runs).toEqual([
        {
          workflow: 'research',
          status: 'completed',
          queue_name: 'research',
          partition_key: 'acme',
        },
      ]);
    } finally {
      db.close();
    }
  });
});
