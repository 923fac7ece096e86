import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './compileWithTsc';

/** The repository's README.md. */
export const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of the README section under `## heading`, up to the next `## `. */
export function readmeSection(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The fenced code blocks of `text` in language `lang`, in order, without their fences. */
export function codeBlocks(text: string, lang: string): string[] {
  const fence = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm');
  return [...text.matchAll(fence)].map((match) => match[1]);
}

/** The one code block of `lang` in section `heading`, or the `index`-th. */
export function readmeBlock(heading: string, lang: string, index = 0): string {
  const block = codeBlocks(readmeSection(heading), lang)[index];
  if (block === undefined) {
    throw new Error(`README.md section "${heading}" has no ${lang} block #${index}`);
  }
  return block;
}

/**
 * A fresh folder for the suite's scripts, removed after it: inside the project, so a script
 * there resolves its packages (and `waymark`) like a user's file. Call at the top of a
 * `describe`; the returned function gives the folder once `beforeAll` ran.
 */
export function scriptFolder(prefix: string): () => string {
  let dir: string | undefined;
  beforeAll(() => {
    const scratch = join(ROOT, 'test', 'package', '.tmp');
    mkdirSync(scratch, { recursive: true });
    dir = mkdtempSync(join(scratch, `${prefix}-`));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => dir!;
}
