import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPILERS, ROOT, type Compiler } from './support/compileWithTsc';
import { packTarball, type PackedTarball } from './support/packTarball';

/** A consumer's tsconfig: how its compiler finds `waymark` and its subpaths. */
interface Setting {
  readonly compiler: Compiler;
  readonly module: string;
  readonly moduleResolution?: string;
  /** `"type": "module"` in the consumer's package.json. */
  readonly esm?: boolean;
  /** Check the shipped declarations too (slow on 5.9: it checks TypeORM's as well). */
  readonly libCheck?: boolean;
}

const SETTINGS: Setting[] = [
  { compiler: 'typescript 5.9', module: 'commonjs', moduleResolution: 'node10' },
  { compiler: 'typescript 5.9', module: 'commonjs' },
  { compiler: 'typescript 5.9', module: 'node16', moduleResolution: 'node16' },
  { compiler: 'typescript 5.9', module: 'nodenext', moduleResolution: 'nodenext', libCheck: true },
  { compiler: 'typescript 5.9', module: 'nodenext', esm: true },
  { compiler: 'typescript 5.9', module: 'esnext', moduleResolution: 'bundler' },
  // The newest major removed node10 (TS5108); `module: commonjs` alone picks bundler there.
  { compiler: 'typescript latest', module: 'commonjs' },
  { compiler: 'typescript latest', module: 'node16', moduleResolution: 'node16' },
  {
    compiler: 'typescript latest',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    libCheck: true,
  },
  { compiler: 'typescript latest', module: 'nodenext', esm: true },
  { compiler: 'typescript latest', module: 'esnext', moduleResolution: 'bundler' },
];

/** Every public entry point: `waymark` and each subpath in the package's `exports`. */
const ENTRY_POINTS = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: object }).exports,
)
  .filter((key) => key !== './package.json')
  .map((key) => key.replace(/^\./, 'waymark'));

/** Imports every entry point; a type error proves `waymark/testing` came with its types. */
const CONSUMER = [
  ...ENTRY_POINTS.map((entry, i) => `import * as entry${i} from '${entry}';`),
  `export const entries = [${ENTRY_POINTS.map((_, i) => `entry${i}`).join(', ')}];`,
  "import { createTestRuntime } from 'waymark/testing';",
  "// @ts-expect-error: typed, so a number is not a test runtime's options",
  'void createTestRuntime(42);',
].join('\n');

function titleOf(setting: Setting): string {
  return [
    setting.compiler,
    `module ${setting.module}`,
    `moduleResolution ${setting.moduleResolution ?? '(default)'}`,
    setting.esm ? '"type": "module"' : '',
    setting.libCheck ? 'declarations checked' : '',
  ]
    .filter(Boolean)
    .join(', ');
}

describe('the packed package resolves with its types under every module setting', () => {
  let packed: PackedTarball;
  let consumers: string;
  beforeAll(() => {
    packed = packTarball();
    // Beside the extracted package, the repository's node_modules supplies its dependencies.
    symlinkSync(join(ROOT, 'node_modules'), join(packed.dir, 'node_modules'), 'dir');
    consumers = join(packed.dir, 'consumers');
    mkdirSync(join(consumers, 'node_modules'), { recursive: true });
    execFileSync('tar', ['xzf', packed.tarball, '-C', join(consumers, 'node_modules')]);
    renameSync(
      join(consumers, 'node_modules', 'package'),
      join(consumers, 'node_modules', 'waymark'),
    );
  });
  afterAll(() => packed.remove());

  it('exports waymark, waymark/testing, waymark/nest, waymark/otel, waymark/console, waymark/ai, waymark/migrations and waymark/mcp', () => {
    expect(ENTRY_POINTS).toEqual(
      expect.arrayContaining([
        'waymark',
        'waymark/testing',
        'waymark/nest',
        'waymark/otel',
        'waymark/console',
        'waymark/ai',
        'waymark/migrations',
        'waymark/mcp',
      ]),
    );
  });

  it.each(SETTINGS.map((setting) => [titleOf(setting), setting] as const))(
    '%s',
    (title, setting) => {
      const dir = join(consumers, title.replace(/\W+/g, '-'));
      mkdirSync(dir);
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ type: setting.esm ? 'module' : 'commonjs' }),
      );
      writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: setting.module,
            ...(setting.moduleResolution ? { moduleResolution: setting.moduleResolution } : {}),
            strict: true,
            experimentalDecorators: true,
            emitDecoratorMetadata: true,
            skipLibCheck: !setting.libCheck,
            types: ['node'],
            noEmit: true,
          },
          files: ['consumer.ts'],
        }),
      );
      const tsc = spawnSync(process.execPath, [COMPILERS[setting.compiler], '-p', dir], {
        encoding: 'utf8',
      });
      expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
      expect(tsc.status).toBe(0);
    },
  );
});
