import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkerProcess } from '../../test/crash/support/WorkerProcess';

const MAIN = 'examples/support-agent/main.ts';

/** What the example's README shows: killed in its 3rd model call, run again, refunded once. */
describe('examples/support-agent: crash and resume against the fake server', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'waymark-support-agent-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resumes with the lookup and the refund replayed, and refunds once', async () => {
    const first = WorkerProcess.start(MAIN, ['--crash-at', '3', '--data-dir', dir], {
      timeoutMs: 60_000,
    });
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(first.lines).toContain('[step] #3 tool:refund');

    const second = WorkerProcess.start(MAIN, ['--data-dir', dir], { timeoutMs: 60_000 });
    await second.succeeded();
    expect(second.lines.filter((l) => l.startsWith('[replayed]'))).toEqual([
      '[replayed] #0 model:gpt-4o-mini',
      '[replayed] #1 tool:lookupOrder',
      '[replayed] #2 model:gpt-4o-mini',
      '[replayed] #3 tool:refund',
    ]);
    expect(second.lines.filter((l) => l.startsWith('[fake model]'))).toEqual([
      '[fake model] request 1 (turn 2)',
    ]);
    expect(second.lines.at(-1)).toBe(
      '[result] "I am sorry about order 1. I have refunded it; the refund is on its way."',
    );
    const refunds = readFileSync(join(dir, 'support-agent-refunds.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(refunds.map((r) => JSON.parse(r) as unknown)).toEqual([
      { refundId: 'R-1-1', orderId: '1', amount: 40, idempotencyKey: 'ticket-1001:refund-1' },
    ]);
  }, 120_000);
});
