import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../package/support/compileWithTsc';
import { readmeBlock } from '../package/support/readme';
import { docBlocks } from './support/docBlocks';

/**
 * `test/package/readme-quickstart.test.ts` follows the README's Install and Quickstart from the
 * packed package; the Get started page and `examples/quickstart.ts` show the same code, so that
 * test holds for them too only while they are copies.
 */
describe("the README's Install and Quickstart, where they are copied", () => {
  const page = 'guide/getting-started.md';
  const copied: Array<[string, string, number]> = [
    ['Install', 'sh', 0],
    ['Install', 'json', 0],
    ['Quickstart', 'ts', 0],
    ['Quickstart', 'sh', 0],
  ];

  it.each(copied)(`docs/${page} shows the README's %s %s block #%d`, (section, lang, index) => {
    const pageBlocks = docBlocks(page, lang).map((block) => block.code);
    expect(pageBlocks).toContain(readmeBlock(section, lang, index));
  });

  it("examples/quickstart.ts is the README's Quickstart, with the database a test can move", () => {
    const example = readFileSync(join(ROOT, 'examples', 'quickstart.ts'), 'utf8')
      .replace(/^\/\*\*.*\*\/\n/, '')
      .replace(
        /Waymark\.create\(\{\n\s*database: process\.env\.WAYMARK_DATABASE_URL \?\? ('[^']+'),\n\s*\}\)/,
        'Waymark.create({ database: $1 })',
      );
    expect(example).toBe(readmeBlock('Quickstart', 'ts'));
  });
});
