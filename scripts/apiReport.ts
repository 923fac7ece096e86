/**
 * The public API as a checked-in report: one `api/<entry>.api.md` per entry point of
 * package.json's "exports", written by API Extractor from the declarations `tsc` emits.
 *
 *   npm run api:update   rewrite the reports from the code
 *   npm run api:check    fail, naming the entry point and showing the diff, when the code's
 *                        surface differs from its checked-in report
 *
 * The comparison is done here rather than by API Extractor's `localBuild: false` mode, which
 * stops at the first changed report and prints no diff. One `tsc` emit and one TypeScript
 * program serve every entry point.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type * as ts from 'typescript';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  type IConfigFile,
} from '@microsoft/api-extractor';

const root = join(__dirname, '..');
const reportFolder = join(root, 'api');
const work = join(root, '.tmp', 'api');
const declarations = join(work, 'dts');
const generated = join(work, 'report');

/**
 * Symbols the main entry's signatures use without exporting them, on purpose; the report
 * still shows their declarations (`includeForgottenExports`), so their surface is reviewed.
 */
const UNEXPORTED_ON_PURPOSE: Record<string, string> = {
  Primitive: 'a helper of IsStorable',
  Leaf: 'a helper of IsStorable',
  Depth: 'a helper of IsStorable',
  AllTrue: 'a helper of IsStorable',
};

interface EntryPoint {
  /** The package's own entry point, `waymark`. */
  readonly main: boolean;
  /** The import specifier: `waymark`, `waymark/testing`. */
  readonly specifier: string;
  /** The report's base name: `waymark`, `waymark-testing`. */
  readonly reportName: string;
  /** The entry point's emitted declarations. */
  readonly dtsPath: string;
}

interface PackageJson {
  readonly name: string;
  readonly exports: Record<string, string | { readonly types?: string }>;
}

function main(mode: 'check' | 'update'): number {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
  const entries = entryPoints(pkg);
  emitDeclarations();
  const problems: string[] = [];
  const reports = extractReports(entries, problems);
  if (problems.length > 0) {
    console.error(`api: API Extractor reported ${problems.length} problem(s):\n`);
    console.error(problems.join('\n'));
    return 1;
  }
  return mode === 'update' ? update(reports) : check(entries, reports);
}

/** Every subpath of package.json's "exports" that has types is an entry point with a report. */
function entryPoints(pkg: PackageJson): EntryPoint[] {
  const entries: EntryPoint[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const types = typeof target === 'string' ? undefined : target.types;
    if (types === undefined) continue;
    const tail = subpath.replace(/^\.\/?/, '');
    entries.push({
      main: tail === '',
      specifier: tail === '' ? pkg.name : `${pkg.name}/${tail}`,
      reportName: tail === '' ? pkg.name : `${pkg.name}-${tail.replace(/\//g, '-')}`,
      dtsPath: join(declarations, relative('dist', types)),
    });
  }
  return entries;
}

function emitDeclarations(): void {
  rmSync(declarations, { recursive: true, force: true });
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(
    process.execPath,
    [
      tsc,
      '-p',
      join(root, 'tsconfig.build.json'),
      '--emitDeclarationOnly',
      '--outDir',
      declarations,
      '--sourceMap',
      'false',
      '--inlineSources',
      'false',
    ],
    { stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error('api: tsc could not emit the declarations');
}

function extractorConfig(entry: EntryPoint): IConfigFile {
  return {
    projectFolder: root,
    mainEntryPointFilePath: entry.dtsPath,
    bundledPackages: [],
    newlineKind: 'lf',
    compiler: {
      overrideTsconfig: {
        compilerOptions: {
          target: 'ES2022',
          module: 'commonjs',
          moduleResolution: 'node',
          lib: ['ES2022'],
          types: ['node'],
          strict: true,
          esModuleInterop: true,
          experimentalDecorators: true,
          skipLibCheck: true,
        },
        include: [join(declarations, '**', '*.d.ts')],
      },
      skipLibCheck: true,
    },
    apiReport: {
      enabled: true,
      reportFileName: entry.reportName,
      // API Extractor compares its fresh report (temp folder) with the one in the report
      // folder; pointing both at one folder leaves the comparison to this script.
      reportFolder: generated,
      reportTempFolder: generated,
      // The main entry's report also shows what its signatures use without exporting.
      includeForgottenExports: entry.main,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    // A configObject gets none of api-extractor.json's defaults: every rule is stated here.
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning },
        // waymark has one release level: whatever an entry point exports is public, so it
        // carries no @public/@beta tags for API Extractor to trim by.
        'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
        // TSDoc is required on exports (STYLE.md 8), not on every member of an interface.
        'ae-undocumented': { logLevel: ExtractorLogLevel.None },
      },
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
    },
  };
}

/** Runs API Extractor for each entry point; returns the report texts by file name. */
function extractReports(entries: readonly EntryPoint[], problems: string[]): Map<string, string> {
  rmSync(generated, { recursive: true, force: true });
  const configs = entries.map((entry) =>
    ExtractorConfig.prepare({
      configObject: extractorConfig(entry),
      configObjectFullPath: undefined,
      packageJsonFullPath: join(root, 'package.json'),
    }),
  );
  const compilerState = CompilerState.create(configs[0], {
    additionalEntryPoints: entries.map((entry) => entry.dtsPath),
  });
  const publicNames = mainEntryExports(compilerState, entries);
  const reports = new Map<string, string>();
  entries.forEach((entry, i) => {
    Extractor.invoke(configs[i], {
      localBuild: true,
      compilerState,
      messageCallback: (message: ExtractorMessage) => {
        message.handled = true;
        const level = message.logLevel;
        if (level !== ExtractorLogLevel.Error && level !== ExtractorLogLevel.Warning) return;
        if (!acceptedForgottenExport(entry, message, publicNames)) {
          problems.push(describe(entry, message));
        }
      },
    });
    const file = `${entry.reportName}.api.md`;
    const text = readFileSync(join(generated, file), 'utf8');
    // API Extractor titles every report with the package name; say which entry point it is.
    const titled = text.replace(
      /^## API Report File for "[^"]*"/,
      `## API Report File for "${entry.specifier}"`,
    );
    writeFileSync(join(generated, file), titled);
    reports.set(file, titled);
  });
  return reports;
}

/** The names the main entry exports, read from the program API Extractor built. */
function mainEntryExports(state: CompilerState, entries: readonly EntryPoint[]): Set<string> {
  const program = state.program as ts.Program;
  const main = entries.find((entry) => entry.main);
  const file = main && program.getSourceFile(main.dtsPath);
  const checker = program.getTypeChecker();
  const module = file && checker.getSymbolAtLocation(file);
  if (!module) throw new Error('api: the main entry point was not compiled');
  return new Set(checker.getExportsOfModule(module).map((symbol) => symbol.getName()));
}

/**
 * A sub-entry point's signature may use what the main entry exports (`WaymarkRuntime`,
 * `Duration`): users import it from `waymark`. The main entry may use what it lists in
 * {@link UNEXPORTED_ON_PURPOSE}. Any other unexported symbol is an internal leaking out.
 */
function acceptedForgottenExport(
  entry: EntryPoint,
  message: ExtractorMessage,
  publicNames: ReadonlySet<string>,
): boolean {
  if (message.messageId !== 'ae-forgotten-export') return false;
  const symbol = /The symbol "([^"]+)"/.exec(message.text)?.[1]?.replace(/_\d+$/, '');
  if (symbol === undefined) return false;
  return entry.main ? symbol in UNEXPORTED_ON_PURPOSE : publicNames.has(symbol);
}

function describe(entry: EntryPoint, message: ExtractorMessage): string {
  const where = message.sourceFilePath
    ? `${relative(root, message.sourceFilePath)}:${message.sourceFileLine ?? 0}: `
    : '';
  return `  ${entry.specifier}: ${where}${message.text} (${message.messageId})`;
}

function update(reports: ReadonlyMap<string, string>): number {
  mkdirSync(reportFolder, { recursive: true });
  for (const file of staleReports(reports)) rmSync(join(reportFolder, file));
  let changed = 0;
  for (const [file, text] of reports) {
    const path = join(reportFolder, file);
    if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
    writeFileSync(path, text);
    changed += 1;
    console.log(`api: wrote api/${file}`);
  }
  console.log(`api: ${reports.size} report(s), ${changed} changed`);
  return 0;
}

function check(entries: readonly EntryPoint[], reports: ReadonlyMap<string, string>): number {
  let failures = 0;
  for (const entry of entries) {
    const file = `${entry.reportName}.api.md`;
    const checkedIn = join(reportFolder, file);
    const current = existsSync(checkedIn) ? readFileSync(checkedIn, 'utf8') : undefined;
    if (current === reports.get(file)) continue;
    failures += 1;
    console.error(
      current === undefined
        ? `\napi:check: ${entry.specifier} has no report: api/${file} is missing.`
        : `\napi:check: the public API of ${entry.specifier} changed, but api/${file} did not:`,
    );
    if (current !== undefined) console.error(diff(checkedIn, join(generated, file)));
  }
  for (const file of staleReports(reports)) {
    failures += 1;
    console.error(`\napi:check: api/${file} belongs to no entry point of package.json "exports".`);
  }
  if (failures > 0) {
    console.error(
      '\nIf the change is intended, run `npm run api:update`, commit the report, and add a ' +
        'line to CHANGELOG.md for every export removed or renamed.',
    );
    return 1;
  }
  console.log(`api:check: ${entries.length} entry points match their reports in api/`);
  return 0;
}

function staleReports(reports: ReadonlyMap<string, string>): string[] {
  if (!existsSync(reportFolder)) return [];
  return readdirSync(reportFolder).filter((f) => f.endsWith('.api.md') && !reports.has(f));
}

function diff(checkedIn: string, generatedFile: string): string {
  const labels = [
    '--label',
    `api/${relative(reportFolder, checkedIn)} (checked in)`,
    '--label',
    'the code now',
  ];
  const result = spawnSync('diff', ['-u', ...labels, checkedIn, generatedFile], {
    encoding: 'utf8',
  });
  if (result.error) return '(diff is not installed: compare the files yourself)';
  return result.stdout;
}

const mode = process.argv[2];
if (mode !== 'check' && mode !== 'update') {
  console.error('usage: apiReport.ts check|update');
  process.exit(2);
}
process.exit(main(mode));
