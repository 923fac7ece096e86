import { Waymark } from 'waymark';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { seedHistory } from '../support/seedHistory';
import { ConsoleProcess } from './support/ConsoleProcess';

/*
 * The shapes of issue 25 item 1, scaled to stay quick, against a console in a process of its
 * own: 100 steps with 1 MB outputs, 100 failed steps whose error has a 1 MB `code`, 50 runs
 * waiting for approval of 1 MB inputs. Read whole and cut in JavaScript (as before), one page
 * of errors alone was a 100 MB answer and some 300 MB of the console's memory; cut in the
 * database, every answer stays under 1 MB and the console's peak under 200 MB over its start.
 */
const MB = 1_000_000;
const STEPS = 100;
const APPROVALS = 50;
const CODED_ERROR = JSON.stringify({
  $wm: 'Error',
  name: 'CodedError',
  message: 'boom',
  code: 'C'.repeat(MB),
});
const approvalRequest = (i: number): string =>
  JSON.stringify({ tool: 'send', toolCallId: `call-${i}`, input: { body: 'i'.repeat(MB) } });

describe('the console process on values of 1 MB', () => {
  let db: TestDatabase;
  let served: ConsoleProcess;
  let base: { url: string; token: string };

  beforeAll(async () => {
    db = await createTestDatabase('sqlite-file');
    const seeder = await Waymark.create({ database: db.url });
    const { dataSource } = seeder;
    try {
      await seedHistory(dataSource, { runId: 'outputs', steps: STEPS, outputBytes: MB });
      await seedHistory(dataSource, {
        runId: 'errors',
        steps: STEPS,
        status: 'failed',
        failed: Array.from({ length: STEPS }, (_, i) => i),
        error: CODED_ERROR,
      });
      for (let i = 0; i < APPROVALS; i++) {
        const runId = `approval-${i}`;
        await seedHistory(dataSource, {
          runId,
          steps: 2,
          status: 'waiting',
          waitingFor: `signal:approve:call-${i}`,
        });
        await dataSource.query(
          "UPDATE waymark_steps SET name = 'approval-request', output = ? WHERE run_id = ? AND seq = 0",
          [approvalRequest(i), runId],
        );
        await dataSource.query(
          "UPDATE waymark_steps SET name = ?, status = 'started', output = NULL WHERE run_id = ? AND seq = 1",
          [`signal:approve:call-${i}`, runId],
        );
      }
    } finally {
      await seeder.close();
    }
    served = new ConsoleProcess(db.url);
    base = await served.next<{ url: string; token: string }>();
  }, 120_000);
  afterAll(async () => {
    await served?.stop();
    await db?.drop();
  });

  const size = async (path: string): Promise<number> => {
    const response = await fetch(`${base.url}${path}`, {
      headers: { authorization: `Bearer ${base.token}` },
    });
    expect(response.status).toBe(200);
    return Buffer.byteLength(await response.text());
  };

  it('answers each page under 1 MB, its peak memory growing under 200 MB', async () => {
    // Warm up what every request uses (code, connections), then take the baseline.
    await size('api/runs?limit=1');
    await size('api/runs/outputs?limit=1');
    const before = await served.mark();
    const pages = ['api/runs/outputs', 'api/runs/errors', 'api/runs?limit=1000'];
    const sizes = [
      ...(await Promise.all(pages.map(size))),
      // Three tabs at once on the largest page.
      ...(await Promise.all([1, 2, 3].map(() => size('api/runs/errors?limit=200')))),
    ];
    const after = await served.memory();
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MB);
    expect((after.peakRss - before.rss) / 2 ** 20).toBeLessThanOrEqual(200);
  }, 120_000);
});
