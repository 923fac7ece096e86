import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../../package/support/compileWithTsc';

/** The docs site's Markdown folder. */
export const DOCS = join(ROOT, 'docs');

/** One fenced code block of a page. */
export interface DocBlock {
  /** The page, relative to `docs/` (`guides/queues.md`). */
  readonly page: string;
  /** 0 for the page's first block of this language, 1 for the next… */
  readonly index: number;
  /** What follows the language on the fence line (`fragment`), trimmed. */
  readonly info: string;
  /** The block's text without its fences, dedented when the fence was indented (in a list). */
  readonly code: string;
}

/** Every Markdown page under `docs/`, relative to it, without VitePress's own folder. */
export function docPages(dir = DOCS): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : docPages(path);
      return entry.name.endsWith('.md') ? [relative(DOCS, path)] : [];
    })
    .sort();
}

/** The text of a page (`guides/queues.md`). */
export function docPage(page: string): string {
  return readFileSync(join(DOCS, page), 'utf8');
}

/** The fenced blocks of language `lang` on `page`, in order. */
export function docBlocks(page: string, lang: string): DocBlock[] {
  const fence = new RegExp(`^( *)\`\`\`${lang}(?![\\w-])([^\\n]*)\\n([\\s\\S]*?)^\\1\`\`\`$`, 'gm');
  return [...docPage(page).matchAll(fence)].map((match, index) => {
    const indent = match[1].length;
    const code = match[3]
      .split('\n')
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join('\n');
    return { page, index, info: match[2].trim(), code };
  });
}

/** The one block of `lang` on `page`, or its `index`-th; throws naming the page when missing. */
export function docBlock(page: string, lang: string, index = 0): string {
  const block = docBlocks(page, lang)[index];
  if (block === undefined) throw new Error(`docs/${page} has no ${lang} block #${index}`);
  return block.code;
}

/**
 * The page's setup for its `ts` blocks: the code of every `<!-- ts-setup … -->` comment, in
 * order (see the contributing page's "Code blocks").
 */
export function docSetup(page: string): string {
  return [...docPage(page).matchAll(/<!-- ts-setup\n([\s\S]*?)-->/g)]
    .map((match) => match[1])
    .join('\n');
}
