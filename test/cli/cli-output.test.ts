import { Waymark, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { seedHistory } from '../support/seedHistory';
import { waymark, waymarkPiped } from './support/waymarkCli';

const CLEAR = '\u001b[2J';
const TITLE = '\u001b]0;you have been pwned\u0007';
const CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4K\u0007';
const C1_CSI = '\u009b31m';
const HOSTILE = `card declined ${CLEAR}${TITLE}${CLIPBOARD}${C1_CSI}`;
const EVIL_RUN = `evil-1${CLEAR}`;

/** Anything a terminal would act on rather than show: C0 (but line breaks), DEL, C1. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('waymark CLI output on a terminal', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('sqlite-file');
    const runtime: WaymarkRuntime = await Waymark.create({ database: db.url });
    try {
      await seedHistory(runtime.dataSource, {
        runId: EVIL_RUN,
        steps: 3,
        failed: [2],
        error: JSON.stringify({ $wm: 'Error', name: 'Error', message: HOSTILE }),
        status: 'failed',
      });
      await seedHistory(runtime.dataSource, { runId: 'paged', steps: 2_500, retrying: [2_499] });
      // Enough runs that `waymark runs --limit 1000` writes more than a pipe holds.
      await runtime.dataSource.query(
        'WITH RECURSIVE g(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM g WHERE n < 999) ' +
          'INSERT INTO waymark_runs (id, workflow, status, args, epoch, created_at, updated_at) ' +
          "SELECT 'filler-' || n, 'filler', 'completed', '[]', 1, n, n FROM g",
      );
    } finally {
      await runtime.close();
    }
  });
  afterAll(() => db?.drop());

  it('runs and show print stored control characters as escapes, never raw', async () => {
    const [runs, show, json, missing] = await Promise.all([
      waymark(['runs', '--limit', '5'], { db: db.url }),
      waymark(['show', EVIL_RUN], { db: db.url }),
      waymark(['show', EVIL_RUN, '--json'], { db: db.url }),
      waymark(['show', `nope${TITLE}`], { db: db.url }),
    ]);
    expect(runs.code).toBe(0);
    expect(runs.stdout).toContain('evil-1\\x1b[2J');
    expect(runs.stdout).not.toMatch(CONTROL);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(
      'Error: card declined \\x1b[2J\\x1b]0;you have been pwned\\x07' +
        '\\x1b]52;c;cm0gLXJmIH4K\\x07\\x9b31m',
    );
    expect(show.stdout).not.toMatch(CONTROL);
    expect(json.code).toBe(0);
    expect(json.stdout).not.toMatch(CONTROL);
    const shown = JSON.parse(json.stdout) as { run: { runId: string }; steps: unknown[] };
    expect(shown.run.runId).toBe(EVIL_RUN);
    expect(shown.steps[2]).toMatchObject({ error: { message: HOSTILE } });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('error: no run with id "nope\\x1b]0;you have been pwned\\x07"\n');
  });

  it('show prints a history of several pages whole, as a table and as one JSON document', async () => {
    const [text, json] = await Promise.all([
      waymark(['show', 'paged'], { db: db.url }),
      waymark(['show', 'paged', '--json'], { db: db.url }),
    ]);
    expect(text.code).toBe(0);
    const rows = text.stdout.split('\n').filter((line) => /^\d+ /.test(line));
    expect(rows.map((row) => Number(row.split(' ')[0]))).toEqual([...Array(2_500).keys()]);
    expect(rows[0]).toMatch(/^0 +step +completed/);
    expect(rows[2_499]).toMatch(/^2499 +step +retrying /);
    expect(json.code).toBe(0);
    const shown = JSON.parse(json.stdout) as {
      steps: Array<{ seq: number; idempotencyKey: string }>;
      idempotencyKeyNote: string;
    };
    expect(shown.steps.map((step) => step.seq)).toEqual([...Array(2_500).keys()]);
    expect(shown.steps[1_234]).toMatchObject({ idempotencyKey: 'paged:1234', status: 'completed' });
    expect(shown.idempotencyKeyNote).toContain('else the default runId:seq');
  });

  it('refuses a malformed run id before it opens the database (exit 2)', async () => {
    const result = await waymark(['signal', '..', 'approval'], { db: db.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the run id must not be ".."');
  });

  it('ends quietly when the reader of its output goes away (| head -3)', async () => {
    const result = await waymarkPiped(['runs', '--limit', '1000'], 'head -3', { db: db.url });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toHaveLength(4);
  });
});
