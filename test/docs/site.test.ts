import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from '../package/support/compileWithTsc';
import { builtFile, serveStatic, type StaticSite } from './support/staticSite';

/** Debian's Chromium, launched as the console's browser test launches it. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Every built `.html` page but the 404, as a site path (`/guides/cli`, `/contributing/`). */
function builtPages(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' ? [] : builtPages(root, path);
    if (!entry.name.endsWith('.html') || path === join(root, '404.html')) return [];
    const page = `/${relative(root, path)}`.replace(/index\.html$/, '').replace(/\.html$/, '');
    return [page];
  });
}

/** The element ids of a built page, as the browser sees them once the markup is parsed. */
function elementIds(file: string): Set<string> {
  const html = readFileSync(file, 'utf8');
  return new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((match) => match[1]));
}

let out: string;
let buildOutput = '';
let site: StaticSite;
let profile: string;
let browser: BrowserContext;
let page: Page;
let problems: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: scripts/ensure-chromium.sh installs it`);
  }
  out = mkdtempSync(join(tmpdir(), 'waymark-docs-'));
  const build = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'vitepress', 'bin', 'vitepress.js'), 'build', 'docs'].concat([
      '--outDir',
      out,
    ]),
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
  );
  buildOutput = `${build.stdout}${build.stderr}`;
  if (build.status !== 0) throw new Error(`vitepress build failed:\n${buildOutput}`);
  site = await serveStatic(out);
  profile = mkdtempSync(join(tmpdir(), 'waymark-docs-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 },
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('the docs site', () => {
  it('builds without a warning', () => {
    expect(buildOutput).toContain('build complete');
    expect(buildOutput).not.toMatch(/warn|\(!\)|dead link/i);
  });

  it('has a page for every entry of the sidebar, and the home page', () => {
    const pages = builtPages(out);
    expect(pages).toEqual(
      expect.arrayContaining(['/', '/guide/getting-started', '/contributing/']),
    );
    expect(pages.length).toBeGreaterThanOrEqual(30);
  });

  it('opens every page without a console or page error, and every internal link and #anchor resolves', async () => {
    const broken: string[] = [];
    const failing: Array<{ path: string; problems: string[] }> = [];
    for (const path of builtPages(out)) {
      problems = [];
      const response = await page.goto(`${site.url}${path}`, { waitUntil: 'load' });
      expect({ path, status: response?.status() }).toEqual({ path, status: 200 });
      const targets = await page.$$eval('a[href], img[src]', (elements) =>
        elements.map((element) => element.getAttribute('href') ?? element.getAttribute('src')!),
      );
      for (const target of new Set(targets)) {
        if (/^(https?:|mailto:)/.test(target)) continue;
        const url = new URL(target, `${site.url}${path}`);
        const file = builtFile(out, url.pathname);
        if (!file) {
          broken.push(`${path}: ${target} names no built file`);
          continue;
        }
        const anchor = decodeURIComponent(url.hash.slice(1));
        if (anchor && !elementIds(file).has(anchor)) {
          broken.push(`${path}: ${target} names no element id on ${url.pathname}`);
        }
      }
      if (problems.length > 0) failing.push({ path, problems });
    }
    expect(failing).toEqual([]);
    expect(broken).toEqual([]);
  }, 180_000);

  it('finds "idempotency" with the local search', async () => {
    problems = [];
    await page.goto(`${site.url}/`, { waitUntil: 'load' });
    await page.click('button.DocSearch-Button');
    const input = page.locator('#localsearch-input');
    await input.waitFor();
    await input.fill('idempotency');
    const first = page.locator('.VPLocalSearchBox .results li').first();
    await first.waitFor();
    expect(await first.innerText()).toMatch(/idempoten/i);
    expect(problems).toEqual([]);
  }, 60_000);
});
