import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './support/compileWithTsc';
import { docBlocks } from '../docs/support/docBlocks';
import { scriptFolder } from './support/readme';

const PAGE = 'operate/observability.md';

describe(`docs/${PAGE}: GenAI spans`, () => {
  const folder = scriptFolder('docs-genai-traces');

  it('runs as written: two chat spans and one execute_tool span in an invoke_agent span, with their gen_ai attributes', () => {
    const database = `sqlite:${join(folder(), 'waymark.db')}`;
    const [example] = docBlocks(PAGE, 'ts').filter((block) => block.code.includes('durableModel'));
    const block = example.code.replace("'sqlite:./waymark.db'", JSON.stringify(database));
    expect(block).toContain(database);
    // The block's imports stay at the top; the rest (top-level await) runs inside main(). Its
    // imports span lines, so they end at the first line after the last `from '…';`.
    const lines = block.split('\n');
    const lastImport = lines.map((line) => /^import |^} from /.test(line)).lastIndexOf(true);
    const script = [
      ...lines.slice(0, lastImport + 1),
      'async function main(): Promise<void> {',
      ...lines.slice(lastImport + 1),
      '}',
      'void main();',
    ].join('\n');
    const file = join(folder(), 'genai-traces.ts');
    writeFileSync(file, script);
    const output = execFileSync(process.execPath, ['-r', '@swc-node/register', file], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(output).toMatch(/^Order 7 has shipped\.\n/);
    const spans = output
      .split('\n')
      .filter((line) => /^(chat|execute_tool|invoke_agent) /.test(line));
    expect(spans).toEqual([
      expect.stringMatching(/^chat gpt-4o-mini /),
      expect.stringMatching(/^execute_tool lookupOrder /),
      expect.stringMatching(/^chat gpt-4o-mini /),
      expect.stringMatching(/^invoke_agent support /),
    ]);
    expect(output).toContain("'gen_ai.provider.name': 'openai.chat'");
    expect(output).toContain("'gen_ai.usage.input_tokens': 52");
    expect(output).toContain("'gen_ai.tool.call.id': 'call_1'");
    expect(output).toMatch(/'gen_ai.response.finish_reasons': \[ 'stop' \]/);
  });
});
