import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../package/support/compileWithTsc';
import { docBlock } from './support/docBlocks';

const PAGE = 'guides/conversations.md';
const EXAMPLE = join(ROOT, 'examples/chat-agent');

/** The code without its imports and blank lines, each line trimmed: indentation may differ. */
function body(code: string): string {
  return code
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('import '))
    .join('\n');
}

/**
 * The guide shows the example's code, and the example's tests (Chromium, SIGKILL on three
 * backends) run it: each block must be the example's code as it is, but for its imports.
 */
describe('docs/guides/conversations.md shows examples/chat-agent as it is', () => {
  it.each([
    ['ts', 0, 'ChatAgent.ts', 'the workflow, whole'],
    ['ts', 1, 'ChatServer.ts', 'deliver()'],
    ['ts', 2, 'transcript.ts', 'the transcript reader, whole'],
    ['js', 0, 'public/chat.js', "the page's read()"],
  ] as const)('%s block %i is %s: %s', (lang, index, file, what) => {
    const shown = body(docBlock(PAGE, lang, index));
    const source = body(readFileSync(join(EXAMPLE, file), 'utf8'));
    expect(shown.split('\n').length).toBeGreaterThan(10);
    expect(source).toContain(shown);
    if (what.endsWith('whole')) expect(shown).toBe(source);
  });
});
