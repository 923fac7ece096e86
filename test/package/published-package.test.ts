import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { runInNewContext } from 'node:vm';
import { ROOT } from './support/compileWithTsc';
import { packTarball, type PackedTarball } from './support/packTarball';
import { docBlock } from '../docs/support/docBlocks';
import { README } from './support/readme';

interface SourceMap {
  sources: string[];
  sourcesContent?: Array<string | null>;
}

describe('the package as published', () => {
  let packed: PackedTarball;
  let unpacked: string;
  let files: string[];
  let manifest: Record<string, any>;
  beforeAll(() => {
    packed = packTarball();
    unpacked = join(packed.dir, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['xzf', packed.tarball, '-C', unpacked]);
    files = execFileSync('tar', ['tzf', packed.tarball], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((file) => file.replace(/^package\//, ''));
    manifest = JSON.parse(readFileSync(join(unpacked, 'package', 'package.json'), 'utf8'));
  }, 120_000);
  afterAll(() => packed.remove());

  it('ships dist/, the README and the MIT LICENSE, and no sources or tests', () => {
    expect(files).toEqual(
      expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.js']),
    );
    expect(readFileSync(join(unpacked, 'package', 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(manifest.license).toBe('MIT');
    expect(
      files.filter((file) => !/^(dist\/|LICENSE$|README\.md$|package\.json$)/.test(file)),
    ).toEqual([]);
  });

  it('has source maps that carry the sources they point to', () => {
    const maps = files.filter((file) => file.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(100);
    for (const file of maps) {
      const map = JSON.parse(readFileSync(join(unpacked, 'package', file), 'utf8')) as SourceMap;
      expect({ file, contents: map.sourcesContent?.length }).toEqual({
        file,
        contents: map.sources.length,
      });
      map.sources.forEach((source, i) => {
        // Where the map says the source is, in the repository's layout: src/….
        const original = relative(ROOT, resolve(ROOT, dirname(file), source));
        expect(original).toMatch(/^src\//);
        expect(map.sourcesContent?.[i]).toBe(readFileSync(join(ROOT, original), 'utf8'));
      });
    }
  });

  it('names its repository and builds when packed, not when installed', () => {
    expect(manifest.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/waymark-dev/waymark.git',
    });
    const scripts = Object.keys(manifest.scripts as object);
    expect(scripts).toContain('prepack');
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) {
      expect(scripts).not.toContain(hook);
    }
  });

  it('makes pg an optional peer (installed only by PostgreSQL users); mysql2 stays a dependency', () => {
    expect(manifest.dependencies).toHaveProperty('mysql2');
    expect(manifest.dependencies).not.toHaveProperty('pg');
    expect(manifest).not.toHaveProperty('optionalDependencies');
    expect(manifest.peerDependencies).toHaveProperty('pg');
    expect(manifest.peerDependenciesMeta.pg).toEqual({ optional: true });
  });
});

describe('the README on the package page', () => {
  const links = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
  const headings = new Set(
    [...README.matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
      match[1]
        .toLowerCase()
        .replace(/[^\p{L}\p{N} -]/gu, '')
        .replace(/ /g, '-'),
    ),
  );

  it('links only to absolute URLs or to its own headings', () => {
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      if (link.startsWith('#')) expect(headings).toContain(link.slice(1));
      else expect(link).toMatch(/^https:\/\//);
    }
  });

  it("links to the repository's files by paths that exist", () => {
    const repository = [
      /^https:\/\/github\.com\/waymark-dev\/waymark\/(?:blob|tree)\/main\/([^#]+)/,
      /^https:\/\/raw\.githubusercontent\.com\/waymark-dev\/waymark\/main\/([^#]+)/,
    ];
    const paths = links.flatMap((link) => repository.map((re) => re.exec(link)?.[1] ?? []).flat());
    expect(paths).toEqual(
      expect.arrayContaining(['bench/RESULTS.md', 'docs/console-timeline.png']),
    );
    for (const path of paths)
      expect({ path, exists: existsSync(join(ROOT, path)) }).toEqual({ path, exists: true });
  });

  it("documents, in the testing guide, the jest configuration waymark's own suites run with", () => {
    const load = (source: string) => {
      const module = { exports: {} as Record<string, any> };
      runInNewContext(source, { module, exports: module.exports });
      return module.exports;
    };
    const documented = load(
      docBlock('guides/testing.md', 'js').replace(/^\/\/ jest\.config\.js\n/, ''),
    );
    const own = load(readFileSync(join(ROOT, 'jest.config.js'), 'utf8'));
    expect(documented.transform).toEqual({ '^.+\\.ts$': own.transform['^.+\\.ts$'] });
    expect(documented.setupFiles).toEqual(own.setupFiles);
    // Ours is jest's node environment plus a check that a file prints no waymark warning.
    expect(documented.testEnvironment).toBe('node');
    expect(own.testEnvironment).toBe('<rootDir>/test/support/WarningCheckingEnvironment.ts');
    expect(readFileSync(join(ROOT, 'test/support/WarningCheckingEnvironment.ts'), 'utf8')).toMatch(
      /extends NodeEnvironment/,
    );
  });
});
