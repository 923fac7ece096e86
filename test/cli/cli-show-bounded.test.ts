import { Waymark } from 'waymark';
import type { DataSource } from 'typeorm';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import { seedHistory } from '../support/seedHistory';
import { waymark, type CliResult } from './support/waymarkCli';

const MB = 1_000_000;
const STEPS = 50;
const BIG_RESULT = JSON.stringify('r'.repeat(MB));
const BIG_ERROR = JSON.stringify({
  $wm: 'Error',
  name: 'CodedError',
  message: 'boom',
  code: 'C'.repeat(MB),
});

// `sqlite` is in memory, a database the CLI's own process cannot open: the other three.
describe.each(ALL_BACKENDS.filter((backend) => backend !== 'sqlite'))(
  'waymark show with 1 MB values (%s)',
  (backend) => {
    let db: TestDatabase;
    const cli = (...args: string[]): Promise<CliResult> => waymark(args, { db: db.url });

    beforeAll(async () => {
      db = await createTestDatabase(backend);
      const runtime = await Waymark.create({ database: db.url });
      try {
        await seed(runtime.dataSource, backend === 'postgres');
      } finally {
        await runtime.close();
      }
    }, 120_000);
    afterAll(() => db?.drop());

    it('--json prints values over 16,384 characters as their start, in under 1 MB', async () => {
      const { code, stdout } = await cli('show', 'outputs', '--json');
      expect(code).toBe(0);
      expect(stdout.length).toBeLessThanOrEqual(MB);
      const shown = JSON.parse(stdout);
      expect(shown.outcome).toEqual({
        resultPreview: { json: BIG_RESULT.slice(0, 16_384), truncated: true, length: MB + 2 },
      });
      expect(shown.steps).toHaveLength(STEPS);
      for (const step of shown.steps) {
        expect(step.output).toMatchObject({ truncated: true, length: MB });
        expect(step.output.json).toHaveLength(16_384);
      }
    });

    it('cuts error names and codes, and prints the table in under 1 MB', async () => {
      const shown = JSON.parse((await cli('show', 'errors', '--json')).stdout);
      const cutCode = `${'C'.repeat(200)}… (${MB - 200} more characters)`;
      expect(shown.outcome).toEqual({
        error: { name: 'CodedError', message: 'boom', code: cutCode },
      });
      for (const step of shown.steps) {
        expect(step.error).toEqual({ name: 'CodedError', message: 'boom', code: cutCode });
      }
      const table = await cli('show', 'errors');
      expect(table.code).toBe(0);
      expect(table.stdout.length).toBeLessThanOrEqual(MB);
      expect(table.stdout).toContain('CodedError [CCCC');
    });

    it('--whole prints every value whole', async () => {
      const { code, stdout } = await cli('show', 'outputs', '--json', '--whole');
      expect(code).toBe(0);
      const shown = JSON.parse(stdout);
      expect(shown.outcome).toEqual({ result: JSON.parse(BIG_RESULT) });
      for (const step of shown.steps) expect(step.output).toHaveLength(MB - 2);
    });
  },
);

async function seed(dataSource: DataSource, pg: boolean): Promise<void> {
  const q = (sql: string, params: unknown[]): Promise<unknown> => {
    let n = 0;
    return dataSource.query(pg ? sql.replace(/\?/g, () => `$${++n}`) : sql, params);
  };
  await seedHistory(dataSource, { runId: 'outputs', steps: STEPS, outputBytes: MB });
  await q('UPDATE waymark_runs SET result = ? WHERE id = ?', [BIG_RESULT, 'outputs']);
  await seedHistory(dataSource, {
    runId: 'errors',
    steps: STEPS,
    status: 'failed',
    failed: Array.from({ length: STEPS }, (_, i) => i),
    error: BIG_ERROR,
  });
  await q('UPDATE waymark_runs SET error = ? WHERE id = ?', [BIG_ERROR, 'errors']);
}
