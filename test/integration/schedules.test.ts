import { Waymark } from 'waymark';
import type { Backend } from '../support/databases';
import { useClockworkSuite } from '../support/clockworkSuite';
import { Clockwork } from '../support/fixtures/Clockwork';
import { JobLog, QueuedJobs } from '../support/fixtures/QueuedJobs';

const BACKENDS: Backend[] = ['sqlite', 'sqlite-file', 'mariadb', 'postgres'];
const START = Date.UTC(2026, 0, 1, 0, 0, 0);

describe.each(BACKENDS)('schedules and delayed starts on %s', (backend) => {
  const suite = useClockworkSuite(backend, async (runtime) => {
    for (const s of await runtime.schedules()) await runtime.deleteSchedule(s.name);
  });
  const { label: name, until } = suite;
  async function runsOf(schedule: string) {
    const page = await suite.runtime.list({ workflow: 'clockwork.report', limit: 1000 });
    return page.runs.filter((r) => r.runId.startsWith(`${schedule}@`));
  }
  const completed = async (schedule: string, count: number) =>
    (await runsOf(schedule)).filter((r) => r.status === 'completed').length === count;

  it('refuses a cron expression that does not parse and a time zone that does not exist, naming them', async () => {
    await expect(
      suite.runtime.schedule(name('bad'), { cron: 'every day', workflow: 'clockwork.report' }),
    ).rejects.toThrow(/schedule\(\): cron "every day" does not parse/);
    await expect(
      suite.runtime.schedule(name('bad'), { cron: '61 * * * *', workflow: 'clockwork.report' }),
    ).rejects.toThrow(/cron "61 \* \* \* \*" does not parse/);
    await expect(
      suite.runtime.schedule(name('bad'), {
        cron: '0 9 * * *',
        timezone: 'Mars/Olympus_Mons',
        workflow: 'clockwork.report',
      }),
    ).rejects.toThrow(/timezone "Mars\/Olympus_Mons" is not a time zone/);
    await expect(
      suite.runtime.schedule(name('bad'), {
        cron: '0 9 * * *',
        workflow: 'clockwork.report',
        catchUp: 'some' as 'all',
      }),
    ).rejects.toThrow(/catchUp must be one of "skip", "latest", "all"/);
    expect(await suite.runtime.schedules()).toEqual([]);
  });

  it('stores the schedule, in its time zone, and lists, pauses, resumes and deletes it', async () => {
    const s = name('daily');
    const info = await suite.runtime.schedule(s, {
      cron: '0 9 * * *',
      timezone: 'Europe/Paris',
      workflow: 'clockwork.report',
      args: ['daily'],
    });
    expect(info).toMatchObject({ name: s, catchUp: 'latest', paused: false, args: ['daily'] });
    expect(info.nextAt.toISOString()).toBe('2026-01-01T08:00:00.000Z');
    await suite.runtime.pauseSchedule(s);
    expect((await suite.runtime.schedules()).map((x) => [x.name, x.paused])).toEqual([[s, true]]);
    await suite.runtime.resumeSchedule(s);
    expect((await suite.runtime.schedules())[0].paused).toBe(false);
    await expect(suite.runtime.pauseSchedule('no-such')).rejects.toThrow(
      /"no-such" names no stored schedule/,
    );
    expect(await suite.runtime.deleteSchedule(s)).toBe(true);
    expect(await suite.runtime.deleteSchedule(s)).toBe(false);
  });

  it('starts exactly one run per tick, whose id names the schedule and the tick, even with two workers', async () => {
    const s = name('every5');
    await suite.runtime.schedule(s, {
      cron: '*/5 * * * *',
      workflow: 'clockwork.report',
      args: ['t'],
    });
    const other = await Waymark.create({
      database: suite.database,
      clock: suite.runtime.clock,
      container: suite.runtime.container,
    });
    try {
      suite.runtime.startWorker({ pollInterval: 10 });
      other.startWorker({ pollInterval: 10 });
      await suite.runtime.clock.advance('5m');
      await until(() => completed(s, 1), 'the first tick ran');
      await suite.runtime.clock.advance('5m');
      await until(() => completed(s, 2), 'the second tick ran');
      const runs = await runsOf(s);
      expect(runs.map((r) => r.runId).sort()).toEqual([
        `${s}@2026-01-01T00:05:00.000Z`,
        `${s}@2026-01-01T00:10:00.000Z`,
      ]);
      expect(suite.log.entries.filter((e) => e.startsWith('report t'))).toHaveLength(2);
    } finally {
      await other.close({ grace: 100 });
    }
  });

  it("puts a schedule's tick and a delayed start of a queued workflow in that queue, with its partition key", async () => {
    suite.runtime.container.registerInstance(JobLog, new JobLog());
    suite.runtime.queue('jobs', { partitionBy: (tenant: string) => tenant });
    suite.runtime.queue('later');
    const s = name('queued');
    await suite.runtime.schedule(s, {
      cron: '*/5 * * * *',
      workflow: 'queued.job',
      args: ['acme', 1, 0],
    });
    const delayed = await suite.runtime.start(QueuedJobs, 'plain', [7], {
      queue: 'later',
      at: '1h',
    });
    expect(await delayed.status()).toBe('waiting');
    suite.runtime.startWorker({ pollInterval: 10 });
    await suite.runtime.clock.advance('5m');
    const tick = `${s}@2026-01-01T00:05:00.000Z`;
    await until(
      async () =>
        (await suite.runtime
          .handle(tick)
          .status()
          .catch(() => '')) === 'completed',
      'the tick ran',
    );
    await suite.runtime.clock.advance('1h');
    await expect(delayed.result()).resolves.toBe(7);
    const param = (i: number): string => (backend === 'postgres' ? `$${i}` : '?');
    const rows = await suite.runtime.dataSource.query<
      Array<{ id: string; queue_name: string; partition_key: string | null }>
    >(
      `SELECT id, queue_name, partition_key FROM waymark_runs WHERE id IN (${param(1)}, ${param(2)}) ORDER BY id`,
      [tick, delayed.runId],
    );
    expect(rows.map((r) => [r.id, r.queue_name, r.partition_key ?? null]).sort()).toEqual(
      [
        [tick, 'jobs', 'acme'],
        [delayed.runId, 'later', null],
      ].sort(),
    );
  });

  it.each([
    ['all', 3],
    ['latest', 1],
    ['skip', 0],
  ] as const)(
    'after downtime, catchUp "%s" starts %d of the 3 missed ticks',
    async (catchUp, count) => {
      const s = name(`catch-${catchUp}`);
      await suite.runtime.schedule(s, {
        cron: '0 * * * *',
        workflow: 'clockwork.report',
        args: [catchUp],
        catchUp,
      });
      await suite.runtime.clock.advance(3.5 * 3_600_000);
      suite.runtime.startWorker({ pollInterval: 10 });
      await until(
        async () =>
          (await suite.runtime.schedules())[0].nextAt.getTime() > suite.runtime.clock.now(),
        'the schedule moved on',
      );
      await until(() => completed(s, count), `${count} runs completed`);
      expect((await runsOf(s)).length).toBe(count);
      expect((await suite.runtime.schedules())[0].nextAt.toISOString()).toBe(
        '2026-01-01T04:00:00.000Z',
      );
    },
  );

  it('a paused schedule starts nothing; resumed, it goes on from the next tick', async () => {
    const s = name('paused');
    await suite.runtime.schedule(s, {
      cron: '0 * * * *',
      workflow: 'clockwork.report',
      args: ['p'],
      catchUp: 'all',
    });
    await suite.runtime.pauseSchedule(s);
    // A schedule beside it, not paused: once its ticks ran, the worker has seen both.
    const marker = name('marker');
    await suite.runtime.schedule(marker, {
      cron: '0 * * * *',
      workflow: 'clockwork.report',
      args: ['m'],
      catchUp: 'all',
    });
    suite.runtime.startWorker({ pollInterval: 10 });
    await suite.runtime.clock.advance('2h');
    await until(() => completed(marker, 2), 'the marker schedule ran its ticks');
    expect(await runsOf(s)).toHaveLength(0);
    await suite.runtime.resumeSchedule(s);
    await suite.runtime.clock.advance('1h');
    await until(() => completed(s, 1), 'the tick after resuming ran');
    expect((await runsOf(s)).map((r) => r.runId)).toEqual([`${s}@2026-01-01T03:00:00.000Z`]);
  });

  it('start(…, { at }) records the run waiting, and a worker starts it when the time comes', async () => {
    const handle = await suite.runtime.start(Clockwork, 'report', [name('later')], { at: '1h' });
    expect(await handle.status()).toBe('waiting');
    expect((await handle.describe()).wakeAt!.getTime()).toBe(START + 3_600_000);
    suite.runtime.startWorker({ pollInterval: 10 });
    const queued = await suite.runtime.start(Clockwork, 'report', [name('now')], { queue: true });
    await queued.result(); // the worker has polled since
    expect(await handle.status()).toBe('waiting');
    await suite.runtime.clock.advance('1h');
    await until(async () => (await handle.status()) === 'completed', 'the delayed run completed');
  });
});
