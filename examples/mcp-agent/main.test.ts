import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('the MCP agent example', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-mcp-agent-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (): string =>
    execFileSync(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'main.ts')], {
      env: {
        ...process.env,
        OPENAI_API_KEY: '',
        WAYMARK_DATABASE_URL: `sqlite:${join(dir, 'mcp-agent.db')}`,
      },
      encoding: 'utf8',
    });

  it('calls the MCP tool as a step, and the second time answers from the store', () => {
    expect(run()).toBe(
      [
        '[step] #0 model:scripted',
        '[mcp server] lookupOrder 1 (key order-1001:tool:call_1)',
        '[step] #1 tool:lookupOrder',
        '[step] #2 model:scripted',
        '[answer] Order 1 was delivered.',
        '',
      ].join('\n'),
    );
    expect(run()).toBe('[answer] Order 1 was delivered.\n');
  }, 60_000);
});
