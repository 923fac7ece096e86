import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium; `.ci/run` installs the `chromium` package when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

/** No GPU, no sandbox (root), and none of the background traffic this closed network refuses. */
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

/** A headless Chromium with one page, in a scratch profile of its own. */
export interface ChromiumPage {
  readonly browser: BrowserContext;
  readonly page: Page;
  /** The scratch profile folder (a place for screenshots too); `close()` removes it. */
  readonly profile: string;
  /** The page's uncaught errors, and with `consoleErrors` its console errors, as they came. */
  readonly problems: string[];
  close(): Promise<void>;
}

/** Opens Debian's Chromium on a new profile; fails naming how to install it when missing. */
export async function openChromium(
  options: { viewport?: { width: number; height: number }; consoleErrors?: boolean } = {},
): Promise<ChromiumPage> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does)`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'waymark-chromium-'));
  // A persistent context is how Playwright takes a --user-data-dir of our choosing.
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    ...(options.viewport ? { viewport: options.viewport } : {}),
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  if (options.consoleErrors) {
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
  }
  return {
    browser,
    page,
    profile,
    problems,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
