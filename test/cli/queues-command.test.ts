import { container as rootContainer } from 'tsyringe';
import { Waymark, type WaymarkRuntime } from 'waymark';
import type { QueuesReport } from '../../src/cli/commands/queuesCommand';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { JobLog, QueuedJobs } from '../support/fixtures/QueuedJobs';
import { waymark } from './support/waymarkCli';

describe('waymark queues', () => {
  let db: TestDatabase;
  let runtime: WaymarkRuntime;
  const log = new JobLog();

  beforeAll(async () => {
    db = await createTestDatabase('sqlite-file');
    const scope = rootContainer.createChildContainer();
    scope.registerInstance(JobLog, log);
    runtime = await Waymark.create({ database: db.url, container: scope });
    runtime.queue('jobs', { concurrency: 1 });
    runtime.limiter('llm', { concurrency: 2 });
    for (let n = 0; n < 3; n++) await runtime.start(QueuedJobs, 'job', ['t', n, -1]);
    runtime.startWorker({ pollInterval: '20ms' });
    while (log.active === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  });
  afterAll(async () => {
    log.release();
    await runtime.close({ grace: 5_000 });
    await db.drop();
  });

  it('shows each queue’s depth, its running runs and its limits', async () => {
    const [json, table] = await Promise.all([
      waymark(['queues', '--json'], { db: db.url }),
      waymark(['queues'], { db: db.url }),
    ]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as QueuesReport;
    const jobs = report.queues.find((q) => q.name === 'jobs');
    expect(jobs).toMatchObject({ pending: 2, running: 1, limits: { concurrency: 1 } });
    expect(jobs?.executing).toEqual([
      expect.objectContaining({ workflow: 'queued.job', owner: runtime.workerId }),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/QUEUE\s+PENDING\s+WAITING\s+RUNNING\s+LIMITS/);
    expect(table.stdout).toMatch(/jobs\s+2\s+0\s+1\s+concurrency 1/);
    expect(table.stdout).toContain('queued.job');
  });
});
