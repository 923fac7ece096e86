import { compileWithTsc, removeTscWorkspace } from '../package/support/compileWithTsc';
import { docBlocks, docPages, docSetup } from './support/docBlocks';

/** The names a setup module exports, which the page's blocks may use without importing them. */
function exportedNames(setup: string): string[] {
  const declaration =
    /^export (?:declare )?(?:abstract )?(?:class|interface|type|const|let|function|enum) (\w+)/gm;
  return [...setup.matchAll(declaration)].map((match) => match[1]);
}

/** True when `code` imports or declares `name` itself, so the setup's must not be imported. */
function ownsName(code: string, name: string): boolean {
  const imports = new RegExp(`^import[^;]*\\b${name}\\b[^;]*from`, 'm');
  const declares = new RegExp(
    `\\b(?:class|interface|type|const|let|var|function|enum)\\s+${name}\\b`,
  );
  return imports.test(code) || declares.test(code);
}

/** A file name for `page`'s block `index`: flat, as compileWithTsc writes its sources. */
function fileName(page: string, suffix: string): string {
  return `${page.replace(/\.md$/, '').replace(/[^\w]+/g, '_')}.${suffix}.ts`;
}

describe('the ts blocks of the docs', () => {
  afterAll(() => removeTscWorkspace());

  const files: Record<string, string> = {};
  const fragments: string[] = [];
  for (const page of docPages()) {
    const setup = docSetup(page);
    const names = exportedNames(setup);
    const setupFile = fileName(page, 'setup');
    if (setup) files[setupFile] = `${setup}\nexport {};\n`;
    for (const block of docBlocks(page, 'ts')) {
      if (/\bfragment\b/.test(block.info)) {
        fragments.push(`${page} #${block.index}`);
        continue;
      }
      const wanted = names.filter((name) => !ownsName(block.code, name));
      const prelude = wanted.length
        ? `import { ${wanted.join(', ')} } from './${setupFile.replace(/\.ts$/, '')}';\n`
        : '';
      files[fileName(page, String(block.index))] = `${prelude}${block.code}\nexport {};\n`;
    }
  }

  it('finds the blocks, with few fragments', () => {
    expect(Object.keys(files).length).toBeGreaterThan(20);
    expect(fragments.length).toBeLessThanOrEqual(6);
  });

  it('type-check against the package, as ES modules with legacy decorators', () => {
    const compiled = compileWithTsc('typescript 5.9', files, {
      module: 'esnext',
      moduleResolution: 'bundler',
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      noEmit: true,
      types: ['node', 'jest'], // the testing guide's blocks are jest tests
    });
    // Each error names its file: `guides_queues.0.ts(12,5)` is docs/guides/queues.md's first block.
    expect(compiled.output).toBe('');
    expect(compiled.status).toBe(0);
  }, 180_000);
});
