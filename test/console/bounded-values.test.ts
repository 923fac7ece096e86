import { Waymark, dataSourceOptionsFromUrl, type WaymarkRuntime } from 'waymark';
import type { DataSource } from 'typeorm';
import { startConsole, type RunningConsole } from '../../src/console';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import { QueryCounter } from '../support/QueryCounter';
import { seedHistory } from '../support/seedHistory';
import { digestOfRequest } from '../../src/model/approvalDecision';

const MB = 1_000_000;
const STEPS = 50;
const APPROVALS = 20;

/** 1 MB values: a result, arguments, an error `code`, a tool call's input. */
const BIG_ARGS = JSON.stringify(['a'.repeat(MB)]);
const BIG_RESULT = JSON.stringify('r'.repeat(MB));
const BIG_ERROR = JSON.stringify({
  $wm: 'Error',
  name: 'CodedError',
  message: 'boom',
  stack: `CodedError: boom\n${'    at step (steps.ts:1:1)\n'.repeat(40_000)}`,
  code: 'C'.repeat(MB),
});
/** A stored error that is no JSON (and too long to be decoded as a short outcome). */
const CORRUPT = `{not json ${'!'.repeat(2000)}`;
const approvalRequest = (i: number): string =>
  JSON.stringify({ tool: 'send', toolCallId: `call-${i}`, input: { body: 'i'.repeat(MB) } });

/**
 * A statement that selects a stored value column whole: bare in a select list, as in
 * `SELECT seq, output, attempts` or `error AS output`, rather than inside the database's
 * `substr(…)`/`LEFT(…)`/`length(…)` or its JSON functions (MariaDB's `JSON_TABLE(CASE …
 * THEN output END, …)` parses it where it is stored).
 */
function readsWholeValue(sql: string): boolean {
  const selected = sql.replace(/JSON_TABLE\(CASE WHEN .*? THEN \w+ END,/g, 'JSON_TABLE(');
  return /(?:SELECT|,|THEN|ELSE)\s+"?(?:output|error|args|result)"?\s*(?:,|AS\b|FROM\b|END\b)/i.test(
    selected,
  );
}

describe.each(ALL_BACKENDS)('the console on %s reads values cut in the database', (backend) => {
  let db: TestDatabase;
  let reader: WaymarkRuntime;
  let served: RunningConsole;
  const counter = new QueryCounter();

  const get = async (path: string): Promise<{ status: number; text: string }> => {
    const response = await fetch(new URL(path, served.url), {
      headers: { authorization: `Bearer ${served.token}` },
    });
    return { status: response.status, text: await response.text() };
  };

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    // One runtime seeds and serves: an in-memory SQLite database is its connection's alone.
    reader = await Waymark.create({
      database: { ...dataSourceOptionsFromUrl(db.url), logging: ['query'], logger: counter },
    });
    await seed(reader.dataSource);
    served = await startConsole(reader, { port: 0 });
  }, 120_000);
  afterAll(async () => {
    await served?.close();
    await reader?.close({ grace: 0 });
    await db?.drop();
  });
  beforeEach(() => counter.reset());

  afterEach(() => {
    expect(counter.reads.filter(readsWholeValue)).toEqual([]);
  });

  it('answers 50 steps with 1 MB outputs, 1 MB arguments and result in under 1 MB', async () => {
    const { status, text } = await get('api/runs/outputs?limit=500');
    expect(status).toBe(200);
    expect(text.length).toBeLessThanOrEqual(MB);
    const detail = JSON.parse(text);
    expect(detail.run.args).toEqual({
      json: BIG_ARGS.slice(0, 1000),
      truncated: true,
      length: BIG_ARGS.length,
    });
    expect(detail.outcome).toEqual({
      resultPreview: {
        json: BIG_RESULT.slice(0, 1000),
        truncated: true,
        length: BIG_RESULT.length,
      },
    });
    expect(detail.steps).toHaveLength(STEPS);
    for (const step of detail.steps) {
      expect(step.output).toMatchObject({ truncated: true, length: MB });
      expect(step.output.json).toHaveLength(1000);
    }
  });

  it('answers 50 failed steps and attempts with 1 MB error codes in under 1 MB', async () => {
    const { status, text } = await get('api/runs/errors?limit=500');
    expect(status).toBe(200);
    expect(text.length).toBeLessThanOrEqual(MB);
    const detail = JSON.parse(text);
    const cutCode = `${'C'.repeat(200)}… (${MB - 200} more characters)`;
    expect(detail.outcome).toEqual({
      error: { name: 'CodedError', message: 'boom', code: cutCode },
    });
    expect(detail.steps).toHaveLength(STEPS);
    for (const step of detail.steps) {
      expect(step.error).toEqual({ name: 'CodedError', message: 'boom', code: cutCode });
    }
    expect(
      detail.steps.filter((step: { status: string }) => step.status === 'retrying'),
    ).toHaveLength(10);
  });

  it('lists 20 runs waiting for approval of 1 MB inputs in under 1 MB', async () => {
    const { status, text } = await get('api/runs?limit=1000');
    expect(status).toBe(200);
    expect(text.length).toBeLessThanOrEqual(MB);
    const approvals = JSON.parse(text).runs.filter((run: { approval?: unknown }) => run.approval);
    expect(approvals).toHaveLength(APPROVALS);
    const input = JSON.stringify({ body: 'i'.repeat(MB) });
    for (const run of approvals) {
      expect(run.approval).toEqual({
        tool: 'send',
        toolCallId: run.runId.replace('approval-', 'call-'),
        input: { json: input.slice(0, 1000), truncated: true, length: input.length },
        waitSeq: 1,
        // Read from the request's start, the same digest a decision is checked against.
        digest: digestOfRequest(approvalRequest(Number(run.runId.slice('approval-'.length)))),
      });
    }
  });

  it('answers one value whole on demand', async () => {
    const stored = await reader.dataSource.query(
      backend === 'postgres'
        ? 'SELECT output FROM waymark_steps WHERE run_id = $1 AND seq = $2'
        : 'SELECT output FROM waymark_steps WHERE run_id = ? AND seq = ?',
      ['outputs', 7],
    );
    counter.reset();
    const output = await get('api/runs/outputs/steps/7/output');
    expect(output).toEqual({ status: 200, text: stored[0].output });
    expect(await get('api/runs/outputs/args')).toEqual({ status: 200, text: BIG_ARGS });
    expect(await get('api/runs/outputs/outcome')).toEqual({ status: 200, text: BIG_RESULT });
    expect(await get('api/runs/errors/outcome')).toEqual({ status: 200, text: BIG_ERROR });
    expect((await get('api/runs/outputs/steps/999/output')).status).toBe(404);
    expect((await get('api/runs/nope/args')).status).toBe(404);
    // A whole-value route reads that one value, as it must.
    counter.reset();
  });

  it('answers a page whose stored error is no JSON', async () => {
    const { status, text } = await get('api/runs/corrupt');
    expect(status).toBe(200);
    const { steps, outcome } = JSON.parse(text);
    // PostgreSQL and MariaDB cannot parse it: that page's errors are decoded whole instead.
    expect(steps[0].error.message).toContain(backend.startsWith('sqlite') ? '{not json' : 'JSON');
    expect(outcome.error.message).toMatch(/^\{not json !+… \(1010 more characters\)$/);
  });

  async function seed(dataSource: DataSource): Promise<void> {
    const pg = backend === 'postgres';
    const q = (sql: string, params: unknown[]): Promise<unknown> => {
      let n = 0;
      return dataSource.query(pg ? sql.replace(/\?/g, () => `$${++n}`) : sql, params);
    };
    await seedHistory(dataSource, { runId: 'outputs', steps: STEPS, outputBytes: MB });
    await q('UPDATE waymark_runs SET args = ?, result = ? WHERE id = ?', [
      BIG_ARGS,
      BIG_RESULT,
      'outputs',
    ]);
    await seedHistory(dataSource, {
      runId: 'errors',
      steps: STEPS,
      status: 'failed',
      failed: Array.from({ length: STEPS - 10 }, (_, i) => i),
      retrying: Array.from({ length: 10 }, (_, i) => STEPS - 10 + i),
      error: BIG_ERROR,
    });
    await q('UPDATE waymark_runs SET error = ? WHERE id = ?', [BIG_ERROR, 'errors']);
    await seedHistory(dataSource, {
      runId: 'corrupt',
      steps: 1,
      status: 'failed',
      failed: [0],
      error: CORRUPT,
    });
    await q('UPDATE waymark_runs SET error = ? WHERE id = ?', [CORRUPT, 'corrupt']);
    for (let i = 0; i < APPROVALS; i++) {
      const runId = `approval-${i}`;
      await seedHistory(dataSource, {
        runId,
        steps: 2,
        status: 'waiting',
        waitingFor: `signal:approve:call-${i}`,
      });
      await q(
        "UPDATE waymark_steps SET name = 'approval-request', output = ? WHERE run_id = ? AND seq = 0",
        [approvalRequest(i), runId],
      );
      // The wait that follows the request, as waymark/ai records it.
      await q(
        "UPDATE waymark_steps SET name = ?, status = 'started', output = NULL WHERE run_id = ? AND seq = 1",
        [`signal:approve:call-${i}`, runId],
      );
    }
  }
});
