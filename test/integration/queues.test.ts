import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { RetriesExhaustedError, Waymark, type WaymarkRuntime } from 'waymark';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import { JobLog, QueuedJobs, tooManyRequests } from '../support/fixtures/QueuedJobs';

describe.each(ALL_BACKENDS)('queues and limiters in one process on %s', (backend) => {
  let db: TestDatabase;
  let runtime: WaymarkRuntime;
  let scope: DependencyContainer;
  let log: JobLog;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    scope = rootContainer.createChildContainer();
    log = new JobLog();
    scope.registerInstance(JobLog, log);
    runtime = await Waymark.create({ database: db.url, container: scope });
  });
  afterEach(async () => {
    await runtime.close({ grace: 0 });
  });

  it('refuses an unknown queue, a zero or negative limit and a misplaced option at once, naming it', async () => {
    await expect(runtime.start(QueuedJobs, 'plain', [1], { queue: 'nope' })).rejects.toThrow(
      /start\(\): queue names queue "nope", which this runtime does not know/,
    );
    await expect(runtime.start(QueuedJobs, 'undeclared', [])).rejects.toThrow(
      /@Workflow "queued.undeclared": queue names queue "undeclared"/,
    );
    expect(() => runtime.queue('q', { concurrency: 0 })).toThrow(
      /queue\("q"\): concurrency must be a positive integer, got 0/,
    );
    expect(() => runtime.queue('q', { rateLimit: { limit: -1, period: '1s' } })).toThrow(
      /queue\("q"\): rateLimit.limit must be a positive integer, got -1/,
    );
    expect(() => runtime.queue('q', { rateLimit: { limit: 5, period: 0 } })).toThrow(
      /queue\("q"\): rateLimit.period must be longer than zero/,
    );
    expect(() => runtime.queue('q', { perKeyConcurrency: 1 })).toThrow(
      /perKeyConcurrency needs partitionBy/,
    );
    expect(() => runtime.limiter('llm', { concurrency: -2 })).toThrow(
      /limiter\("llm"\): concurrency must be a positive integer, got -2/,
    );
    await expect(runtime.start(QueuedJobs, 'plain', [1], { priority: 2 })).rejects.toThrow(
      /start\(\): priority applies to runs of a named queue/,
    );
    const page = await runtime.list();
    expect(page.runs).toHaveLength(0);
  });

  it('runs a queue no more than its concurrency at once, in priority order', async () => {
    runtime.queue('jobs', { concurrency: 2 });
    const handles = [];
    for (let n = 0; n < 6; n++) {
      handles.push(
        await runtime.start(QueuedJobs, 'job', ['t', n, 30], { priority: n === 5 ? 10 : 0 }),
      );
    }
    const stats = await runtime.queueStats();
    expect(stats.find((q) => q.name === 'jobs')).toMatchObject({ pending: 6, running: 0 });
    runtime.startWorker({ concurrency: 10, pollInterval: '20ms' });
    await Promise.all(handles.map((h) => h.result()));
    expect(log.maxActive).toBe(2);
    expect(log.started.slice(0, 2)).toContain('t-5'); // claimed in the first batch
  });

  it('takes partition keys in turn: one tenant with many runs does not hold back another', async () => {
    runtime.queue('jobs', { concurrency: 1, partitionBy: (tenant: string) => tenant });
    const handles = [];
    for (let n = 0; n < 8; n++) handles.push(await runtime.start(QueuedJobs, 'job', ['big', n, 1]));
    handles.push(await runtime.start(QueuedJobs, 'job', ['small', 0, 1]));
    runtime.startWorker({ concurrency: 4, pollInterval: '20ms' });
    await Promise.all(handles.map((h) => h.result()));
    expect(log.started.indexOf('small-0')).toBeLessThanOrEqual(1);
  });

  it('dedupe keeps at most one queued or running run per key, and frees the key when it ends', async () => {
    runtime.queue('jobs');
    const first = await runtime.start(QueuedJobs, 'plain', [1], { queue: 'jobs', dedupe: 'k' });
    const second = await runtime.start(QueuedJobs, 'plain', [2], { queue: 'jobs', dedupe: 'k' });
    expect(second.runId).toBe(first.runId);
    runtime.startWorker({ pollInterval: '20ms' });
    await expect(first.result()).resolves.toBe(1);
    const third = await runtime.start(QueuedJobs, 'plain', [3], { queue: 'jobs', dedupe: 'k' });
    expect(third.runId).not.toBe(first.runId);
    await expect(third.result()).resolves.toBe(3);
    expect(log.started).toEqual(['plain-1', 'plain-3']);
  });

  it('a 429 under a limiter stores a pause, and its retries count against the @Retry budget', async () => {
    runtime.limiter('llm', { concurrency: 1 });
    log.answers.push(tooManyRequests(0.3), tooManyRequests(0.3));
    const paused: number[] = [];
    runtime.on('limiter.paused', (e) => paused.push(e.until));
    const error: unknown = await runtime.run(QueuedJobs, 'limited', ['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as RetriesExhaustedError).attempts).toBe(2);
    expect(log.calls).toHaveLength(2);
    expect(log.calls[1]).toBeGreaterThanOrEqual(paused[0]);
    await expect(runtime.run(QueuedJobs, 'limited', ['y'])).resolves.toBe('answer for y');
  });

  it('a step under an undeclared limiter fails naming it', async () => {
    await expect(runtime.run(QueuedJobs, 'limited', ['z'])).rejects.toThrow(
      /names limiter "llm", which this runtime does not know/,
    );
  });
});
