import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('the MCP server guide example', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-mcp-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the waiting run as input_required, approves it over MCP and reads its result', () => {
    const out = execFileSync(
      process.execPath,
      ['-r', '@swc-node/register', join(__dirname, 'mcp-operator.ts')],
      {
        env: { ...process.env, WAYMARK_DATABASE_URL: `sqlite:${join(dir, 'mcp.db')}` },
        encoding: 'utf8',
      },
    );
    expect(out).toBe('refund-A-17: input_required\n"refunded 40 (dana)"\n');
  });

  it('is the code the guide shows', () => {
    const guide = readFileSync(join(__dirname, '../docs/guides/mcp-server.md'), 'utf8');
    const shown = /```ts\n(\/\*\* The MCP server guide's example[\s\S]*?)```/.exec(guide);
    expect(shown?.[1]).toBe(readFileSync(join(__dirname, 'mcp-operator.ts'), 'utf8'));
  });
});
