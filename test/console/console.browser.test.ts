import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { WaymarkRuntime } from 'waymark';
import { startConsole, type RunningConsole } from '../../src/console';
import { ConsoleShop, MARKUP_ERROR, SCRIPT_PAYLOAD } from './fixtures/ConsoleShop';
import { container } from 'tsyringe';
import { seedHistory } from '../support/seedHistory';
import { Narrator, NarratorScript } from '../support/fixtures/Narrator';
import { openRuntime, seedRuns, waitForStatus, type SeededRuns } from './support/seedRuns';
import { openChromium, type ChromiumPage } from '../support/chromium';

/**
 * The README's picture of a timeline. Written when missing or with
 * `WAYMARK_UPDATE_SCREENSHOT=1`; otherwise the screenshot goes to the scratch profile, so a
 * test run does not change a tracked file.
 */
const README_SCREENSHOT = resolve(__dirname, '../../docs/console-timeline.png');

let runtime: WaymarkRuntime;
let served: RunningConsole;
let runs: SeededRuns;
let chrome: ChromiumPage | undefined;
let page: Page;
let problems: string[];

beforeAll(async () => {
  runtime = await openRuntime();
  runs = await seedRuns(runtime, 'b1');
  runtime.startWorker({ pollInterval: '50ms' });
  served = await startConsole(runtime, { port: 0 });
  chrome = await openChromium({ viewport: { width: 1440, height: 900 }, consoleErrors: true });
  ({ page, problems } = chrome);
  await page.goto(`${served.url}#token=${served.token}`);
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  await served?.close();
  await runtime?.close({ grace: 0 });
});

const row = (runId: string): string => `#runs-body tr[data-run-id="${runId}"]`;

/**
 * Polls `read` until `ok` holds. Playwright's string predicates are evaluated with `eval`,
 * which the console's CSP refuses, so the waiting is done from here.
 */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The ids of the listed runs once the list shows exactly `count` of them. */
function listedRuns(count: number): Promise<string[]> {
  return until(
    () => attributes(page.locator('#runs-body tr'), 'data-run-id'),
    (ids) => ids.length === count,
  );
}

/**
 * `name` of each element `locator` matches, read in one evaluation: the console re-renders
 * its lists while they are read, and reading element by element can ask for a row that a
 * re-render just removed.
 */
function attributes(locator: Locator, name: string): Promise<string[]> {
  return locator.evaluateAll(
    (elements, attribute) => elements.map((element) => element.getAttribute(attribute) ?? ''),
    name,
  );
}

/** Clicks a run and waits for its timeline; returns each bar's step and status. */
async function openTimeline(runId: string): Promise<Array<{ step: string; status: string }>> {
  await page.click(row(runId));
  await page.locator(`#timeline svg[aria-label="step timeline of run ${runId}"]`).waitFor();
  return page.locator('#timeline g.step').evaluateAll((groups) =>
    groups.map((group) => ({
      step: group.getAttribute('data-step') ?? '',
      status: group.querySelector('rect.bar')?.getAttribute('data-status') ?? '',
    })),
  );
}

describe('the web console in Chromium', () => {
  it('takes the token from the URL fragment, hides it, and lists every run', async () => {
    expect((await listedRuns(4)).sort()).toEqual(Object.values(runs).sort());
    expect(page.url()).not.toContain('token');
    expect(await page.evaluate("sessionStorage.getItem('waymark-console-token')")).toBe(
      served.token,
    );
    expect(await page.isHidden('#token-panel')).toBe(true);
  });

  it('shows the queues panel: the default queue with its waiting run', async () => {
    const queue = page.locator('#queues-body tr[data-queue=""]');
    await queue.waitFor();
    expect(await queue.locator('td').allTextContents()).toEqual(['(default)', '0', '1', '0', '']);
    expect(await page.isHidden('#queues-empty')).toBe(true);
  });

  it('filters runs by status', async () => {
    await page.click('#filters button[data-status="failed"]');
    expect(await listedRuns(1)).toEqual([runs.failed]);
    await page.click('#filters button[data-status="completed"]');
    expect((await listedRuns(2)).sort()).toEqual([runs.completed, runs.markup].sort());
    expect(
      await page.getAttribute('#filters button[data-status="completed"]', 'aria-pressed'),
    ).toBe('true');
    await page.click('#filters button[data-status="all"]');
    await listedRuns(4);
  });

  it('draws a run as bars coloured by status, with attempts and waits shaded', async () => {
    expect(await openTimeline(runs.failed)).toEqual([
      { step: 'draft', status: 'completed' },
      { step: 'submitCharge', status: 'failed' },
    ]);
    expect(await page.textContent('#timeline g[data-step="submitCharge"] text.attempts')).toBe(
      '×3',
    );
    expect(await page.locator('#timeline rect.bar.status-failed').count()).toBe(1);

    expect(await openTimeline(runs.waiting)).toEqual([
      { step: 'draft', status: 'completed' },
      { step: 'signal:approval', status: 'started' },
    ]);
    expect(await page.$('#timeline g[data-step="signal:approval"] rect.hatch')).not.toBeNull();
    expect(await page.textContent('#timeline g[data-step="signal:approval"] text.note')).toMatch(
      /^waiting for approval until \d{4}-/,
    );

    expect(await openTimeline(runs.completed)).toEqual([
      { step: 'search', status: 'completed' },
      { step: 'sleep', status: 'completed' },
      { step: 'summarize', status: 'completed' },
    ]);
    expect(await page.textContent('#timeline g[data-step="search"] text.attempts')).toBe('×3');
    expect(await page.$('#timeline g[data-step="sleep"] rect.hatch')).not.toBeNull();
    expect(await page.$('#timeline g[data-step="summarize"] rect.hatch')).toBeNull();
    const update = !existsSync(README_SCREENSHOT) || process.env.WAYMARK_UPDATE_SCREENSHOT === '1';
    const path = update ? README_SCREENSHOT : join(chrome!.profile, 'console-timeline.png');
    mkdirSync(dirname(path), { recursive: true });
    const png = await page.locator('#detail').screenshot({ path });
    expect(png.length).toBeGreaterThan(10_000);
  });

  it('approves a waiting run from the page, and lists it completed once the worker ran it', async () => {
    const item = `#waiting-list li[data-run-id="${runs.waiting}"]`;
    await page.fill(`${item} textarea`, '{"by": "dana", "approved": false}');
    await page.click(`${item} button.approve`);
    await page.waitForSelector(`${row(runs.waiting)}[data-status="completed"]`, {
      timeout: 15_000,
    });
    await expect(runtime.handle(runs.waiting).result()).resolves.toBe('approved by dana');
    await page.waitForSelector(item, { state: 'detached' });
    expect(await page.isVisible('#waiting-empty')).toBe(true);
  });

  it('shows the tool and the proposed arguments of a tool call waiting for approval, as text', async () => {
    const note = '<img src=x onerror="window.__pwned = true">';
    const proposal = await runtime.start(ConsoleShop, 'proposeRefund', ['b1', 150, note]);
    const item = page.locator(`#waiting-list li[data-run-id="${proposal.runId}"]`);
    await item
      .locator('code.tool')
      .filter({ hasText: /^refund$/ })
      .waitFor();
    const shown = await item.evaluateAll((items) =>
      items.map((li) => ({
        signal: li.querySelector('.who code')?.textContent ?? '',
        tool: li.querySelector('code.tool')?.textContent ?? '',
        args: li.querySelector('pre.args')?.textContent ?? '',
        hidden: li.querySelector('.proposal')?.hasAttribute('hidden') ?? true,
      })),
    );
    expect(shown).toEqual([
      {
        signal: 'signal:approve:call-b1',
        tool: 'refund',
        args: JSON.stringify({ orderId: 'order-b1', amount: 150, note }),
        hidden: false,
      },
    ]);
    expect(await page.locator('#waiting-list img').count()).toBe(0);
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    await item.locator('button.reject').click();
    await item.waitFor({ state: 'detached', timeout: 15_000 });
    await expect(proposal.result()).rejects.toThrow('not approved');
    // The page's decision named the request it showed, so it could answer no later one.
    const history = await proposal.history({ valueChars: Infinity });
    const decision = history.find((step) => step.name === 'signal:approve:call-b1')?.output;
    expect(JSON.parse(decision!.json)).toMatchObject({
      approved: false,
      waitSeq: 1,
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('shows bidi, zero-width and other control characters as marked escapes, other text as written', async () => {
    const fileName = 'invoice_2026\u202efdp.exe';
    const proposal = await runtime.start(ConsoleShop, 'proposeRefund', ['b6', 20, fileName]);
    const args = page.locator(`#waiting-list li[data-run-id="${proposal.runId}"] pre.args`);
    await args.filter({ hasText: 'invoice_2026' }).waitFor();
    const proposed = await args.innerText();
    expect(proposed).toContain('"note":"invoice_2026\\u202efdp.exe"');
    expect(proposed).not.toContain('\u202e');
    expect(await args.locator('span.escaped').allInnerTexts()).toEqual(['\\u202e']);
    expect(await args.locator('span.escaped').getAttribute('title')).toMatch(/^U\+202E: /);

    // Right-to-left letters, CJK, emoji (one joined by U+200D) and the line break are text.
    const written =
      'ok \u2067evil\u2069 zero\u200bwidth\ufeff\u2060 مرحبا שלום 中文 \u{1f469}\u200d\u{1f4bb}\nline 2\u0007';
    const notes = await runtime.start(ConsoleShop, 'notes', ['b6\u202e', written]);
    await notes.result();
    await page.click('#filters button[data-status="all"]');
    const listed = page.locator(row(notes.runId));
    await listed.waitFor();
    expect(await listed.locator('td.run-id').innerText()).toBe('notes-b6\\u202e');
    await listed.click();
    const stream = page.locator('#streams .stream[data-stream="notes"] pre');
    await until(
      () => stream.innerText(),
      (shown) => shown.startsWith('ok '),
    );
    expect(await stream.innerText()).toBe(
      'ok \\u2067evil\\u2069 zero\\u200bwidth\\ufeff\\u2060 مرحبا שלום 中文 \u{1f469}\u200d\u{1f4bb}\nline 2\\x07',
    );
    expect(await stream.locator('span.escaped').count()).toBe(6);
    expect(await page.innerText('#detail-title')).toBe('Timeline of notes-b6\\u202e');
    expect(await page.innerText('#run-facts')).toContain('notes-b6\\u202e');

    // The one format character left on the page is the joiner inside the emoji.
    const everything = (await page.innerText('body')).replaceAll('\u{1f469}\u200d\u{1f4bb}', '');
    // eslint-disable-next-line no-control-regex
    expect(everything).not.toMatch(/[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u0007]/);
    await page.locator(`#waiting-list li[data-run-id="${proposal.runId}"] button.reject`).click();
    await expect(proposal.result()).rejects.toThrow('not approved');
  });

  it('shows stored markup as text and never runs it', async () => {
    await openTimeline(runs.markup);
    await page.waitForSelector('#outcome:not([hidden])');
    expect(JSON.parse((await page.textContent('#outcome'))!)).toBe(SCRIPT_PAYLOAD);
    await openTimeline(runs.failed);
    await page
      .locator('#outcome-title')
      .filter({ hasText: /^Error$/ })
      .waitFor();
    expect(await page.textContent('#steps-body tr[data-seq="1"] td.error')).toContain(MARKUP_ERROR);
    expect(await page.textContent('#outcome')).toContain(MARKUP_ERROR.replaceAll('"', '\\"'));
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    expect(await page.locator('img').count()).toBe(0);
    expect(await attributes(page.locator('script'), 'src')).toEqual([
      'dom.js',
      'timeline.js',
      'approvals.js',
      'conversation.js',
      'detail.js',
      'streams.js',
      'queues.js',
      'app.js',
    ]);
  });

  it('shows each step’s output as text, a long one expandable, and the run’s arguments', async () => {
    await openTimeline(runs.markup);
    const cell = page.locator('#steps-body tr[data-seq="0"] td.output');
    await cell.waitFor();
    expect(await cell.textContent()).toBe(JSON.stringify(SCRIPT_PAYLOAD));
    expect(await page.textContent('#run-facts')).toContain('arguments["b1"]');

    await seedHistory(runtime.dataSource, {
      runId: 'browser-long-output',
      steps: 1,
      outputBytes: 3000,
    });
    await openTimeline('browser-long-output');
    const long = page.locator('#steps-body tr[data-seq="0"] td.output details');
    await long.waitFor();
    expect(await long.locator('pre').isVisible()).toBe(false);
    await long.locator('summary').click();
    await long.locator('pre').waitFor({ state: 'visible' });
    expect(await long.locator('pre').textContent()).toMatch(
      /^"0{999}\u2026\n\(2000 more characters: waymark show <run> --json prints it whole\)$/,
    );
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
  });

  it('cancels a run from its detail, after a second click', async () => {
    const doomed = await runtime.start(ConsoleShop, 'approve', ['b2']);
    await waitForStatus(runtime, doomed.runId, 'waiting');
    await page.locator(row(doomed.runId)).waitFor();
    await openTimeline(doomed.runId);
    await page.click('#cancel-run');
    expect(await runtime.handle(doomed.runId).status()).toBe('waiting');
    await page.click('#cancel-run');
    await page.waitForSelector(`${row(doomed.runId)}[data-status="cancelled"]`);
    expect(await page.isHidden('#cancel-run')).toBe(true);
  });

  it('loads a long history a page at a time as the end of its step table scrolls into view', async () => {
    await seedHistory(runtime.dataSource, { runId: 'long-b3', steps: 450 });
    await page.locator(row('long-b3')).waitFor();
    await page.click(row('long-b3'));
    const loaded = (): Promise<number> => page.locator('#steps-body tr').count();
    await until(loaded, (n) => n === 200);
    expect(await page.textContent('#steps-count')).toBe('200 steps loaded, more below');
    await page.locator('#steps-more').scrollIntoViewIfNeeded();
    await until(loaded, (n) => n === 400);
    await page.locator('#steps-more').scrollIntoViewIfNeeded();
    await until(loaded, (n) => n === 450);
    expect(await page.textContent('#steps-count')).toBe('450 steps');
    expect(await page.isHidden('#steps-more')).toBe(true);
    expect(await page.locator('#timeline g.step').count()).toBe(200);
    expect(await page.isVisible('#timeline-note')).toBe(true);
  });

  it('pages the approvals panel, 50 runs waiting for a signal at a time', async () => {
    // Rows only: no worker here knows their workflow, so they stay waiting.
    await runtime.dataSource.query(
      'WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 60) ' +
        'INSERT INTO waymark_runs (id, workflow, status, args, epoch, waiting_for, created_at, updated_at) ' +
        "SELECT 'approval-page-' || n, 'elsewhere', 'waiting', '[]', 1, 'signal:approval', ?, ? FROM g",
      [Date.now(), Date.now()],
    );
    const items = (): Promise<number> => page.locator('#waiting-list li').count();
    await until(items, (n) => n === 50);
    expect(await page.isDisabled('#waiting-newer')).toBe(true);
    await page.click('#waiting-older');
    await until(items, (n) => n === 10);
    expect(await page.textContent('#waiting-page')).toBe('runs 51\u201360');
    expect(await page.isDisabled('#waiting-older')).toBe(true);
    await page.click('#waiting-newer');
    await until(items, (n) => n === 50);
  });

  it('follows a run’s stream live on its page', async () => {
    const script = new NarratorScript();
    let release!: () => void;
    script.gate = new Promise((resolve) => (release = resolve));
    container.registerInstance(NarratorScript, script);
    const live = await runtime.start(Narrator, 'narrate', ['b5', 8]);
    await page.click('#filters button[data-status="all"]');
    await page.locator(row(live.runId)).waitFor();
    await page.click(row(live.runId));
    const text = page.locator('#streams .stream[data-stream="tokens"] pre');
    await until(
      () => text.textContent(),
      (shown) => shown === 't0t1t2t3t4t5t6t7',
    );
    expect(await page.isHidden('#streams-title')).toBe(false);
    release();
    const status = page.locator('#streams .stream[data-stream="tokens"] span');
    await until(
      () => status.textContent(),
      (shown) => shown === '8 chunks, ended',
    );
    await live.result();
  });

  it('ran without a script error or a CSP violation', async () => {
    await waitForStatus(runtime, runs.waiting, 'completed');
    expect(problems).toEqual([]);
  });
});
