import { readFileSync } from 'node:fs';
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
