import type { Page } from 'playwright-core';
import { container } from 'tsyringe';
import type { WaymarkRuntime } from 'waymark';
import { startConsole, type RunningConsole } from '../../src/console';
import { FakeOpenAiServer, supportAgentScript } from '../support/fakeOpenAi';
import { AI_AGENT_ENV, AiAgentWorkflow } from '../ai/support/AiAgentWorkflow';
import { openRuntime } from './support/seedRuns';
import { openChromium, type ChromiumPage } from '../support/chromium';

const ANSWER = 'Your order 1 was refunded. Anything else?';

let server: FakeOpenAiServer;
let runtime: WaymarkRuntime;
let served: RunningConsole;
let chrome: ChromiumPage | undefined;
let page: Page;
let problems: string[];

beforeAll(async () => {
  // One lookup, one refund, then the answer: five steps, model and tool calls in turn.
  server = await FakeOpenAiServer.start(supportAgentScript({ lookups: 1, answer: ANSWER }));
  container.register(AI_AGENT_ENV, { useValue: { baseURL: server.baseURL, effect: () => {} } });
  runtime = await openRuntime();
  await runtime.run(AiAgentWorkflow, 'answer', ['c-generate', 'generate']);
  await runtime.run(AiAgentWorkflow, 'answer', ['c-stream', 'stream']);
  served = await startConsole(runtime, { port: 0 });
  chrome = await openChromium({ viewport: { width: 1440, height: 900 }, consoleErrors: true });
  ({ page, problems } = chrome);
  await page.goto(`${served.url}#token=${served.token}`);
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  await served?.close();
  await runtime?.close({ grace: 0 });
  await server?.close();
});

/** The visible text of the output cell of step `seq`, once the run's table shows it. */
async function outputText(seq: number): Promise<string> {
  const cell = page.locator(`#steps-body tr[data-seq="${seq}"] td.output`);
  await cell.waitFor();
  return cell.innerText();
}

describe('the run view reads model and tool calls as a conversation', () => {
  it.each(['generate', 'stream'])(
    'with %sText: messages, tool calls, usage and finish reason as text, the JSON under raw',
    async (mode) => {
      const runId = `ticket-c-${mode}`;
      await page.click(`#runs-body tr[data-run-id="${runId}"]`);
      await page.locator(`#timeline svg[aria-label="step timeline of run ${runId}"]`).waitFor();

      // The first model call: the user's message in, a tool call out.
      const first = await outputText(0);
      expect(first).toContain(`Ticket c-${mode}: where is my order, and refund order 1.`);
      expect(first).toMatch(/user/i);
      expect(first).toContain('lookupOrder');
      expect(first).toContain('{"orderId":"1"}');
      expect(first).toContain('tokens: 10 in, 5 out');
      expect(first).toContain('finish: tool-calls');

      // The tool step: its name, the arguments the model gave, its result.
      const tool = page.locator('#steps-body tr[data-seq="1"] td.output');
      expect(await tool.locator('code.tool-name').innerText()).toBe('lookupOrder');
      expect(await tool.locator('code.tool-args').innerText()).toBe('{"orderId":"1"}');
      expect(await tool.locator('code.tool-result-value').innerText()).toBe(
        '{"orderId":"1","status":"shipped","total":40}',
      );

      // The next call: the tool's result in, the refund call out.
      const second = await outputText(2);
      expect(second).toContain(
        'lookupOrder returned {"orderId":"1","status":"shipped","total":40}',
      );
      expect(second).toContain('{"orderId":"1","amount":40}');

      // The last call: the assistant's reply and why the model stopped.
      const last = page.locator('#steps-body tr[data-seq="4"] td.output');
      const reply = await outputText(4);
      expect(reply).toContain(ANSWER);
      expect(reply).toContain('finish: stop');
      expect(await last.locator('[data-role="assistant"]').innerText()).toContain(ANSWER);

      // The stored JSON is one click away.
      const raw = last.locator('details.raw pre');
      expect(await raw.isVisible()).toBe(false);
      await last.locator('details.raw summary').click();
      expect(await raw.isVisible()).toBe(true);
      const shown = await raw.innerText();
      if (mode === 'generate') {
        expect(Object.keys(JSON.parse(shown) as object)).toContain('content');
      } else {
        // A recorded stream is longer than the API sends raw: the view above read it whole.
        expect(shown).toMatch(/^\{"parts":\[\{"type":"stream-start"/);
        expect(shown).toMatch(/more characters: waymark show <run> --json prints it whole\)$/);
      }
    },
  );

  it('shows a model call it cannot read as its raw prefix with a note, and does not throw', async () => {
    // A cut value of an unknown shape, as the API sends it for a value too long to read.
    const step = {
      seq: 0,
      name: 'model:m',
      kind: 'model-call',
      output: { json: '{"content":[{"type":"text","text":"hal', truncated: true, length: 5000 },
    };
    await page.evaluate(`(() => {
      const cell = document.createElement('div');
      cell.id = 'cut-call';
      cell.append(window.WaymarkConversation.render(${JSON.stringify(step)}, new Map()));
      document.body.append(cell);
    })()`);
    const cut = page.locator('#cut-call');
    expect(await cut.locator('.note').innerText()).toContain(
      'Not a model call the console can read',
    );
    await cut.locator('details.raw summary').click();
    expect(await cut.locator('details.raw pre').innerText()).toContain(
      '{"content":[{"type":"text","text":"hal…\n(4962 more characters',
    );
  });

  it('ran without a script error or a CSP violation', () => {
    expect(problems).toEqual([]);
  });
});
