import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { readStepLedger } from './fixtures/StepLedger';
import { QueueWorker } from './support/QueueWorker';

const WORKERS = 4;
const SCHEDULE = 'every-second';
const TICKS_WANTED = 4;
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

describe.each(BACKENDS)(`a schedule with ${WORKERS} worker processes on %s`, (backend) => {
  let db: TestDatabase;
  let dir: string;
  let producer: WaymarkRuntime;
  const workers: QueueWorker[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    dir = mkdtempSync(join(tmpdir(), 'waymark-schedule-'));
    producer = await Waymark.create({ database: db.url });
  });
  afterAll(async () => {
    for (const worker of workers) worker.child.kill();
    await Promise.all(workers.map((w) => w.child.exited.catch(() => undefined)));
    await producer?.close({ grace: 0 });
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const tickRuns = async () =>
    (await producer.list({ workflow: 'scheduled.tick', limit: 1000 })).runs;

  it('starts exactly one run per tick, including the tick whose worker was SIGKILLed before moving the schedule on', async () => {
    const ledgerPath = join(dir, 'steps.ledger');
    await producer.schedule(SCHEDULE, {
      cron: '* * * * * *',
      workflow: 'scheduled.tick',
      args: ['tick'],
      catchUp: 'all',
    });
    // The first worker inserts the first tick's run and is killed before it moves the tick on.
    const killed = QueueWorker.start(db.url, ledgerPath, {
      pollInterval: '50ms',
      killOnScheduleFire: true,
    });
    workers.push(killed);
    const exit = await killed.child.exited;
    expect(exit.signal).toBe('SIGKILL');
    const [fired] = killed.events('schedule.fired');
    expect(fired).toBeDefined();
    const killedTick = fired.fields[0];

    const barrier = join(dir, 'go');
    const team = Array.from({ length: WORKERS }, () =>
      QueueWorker.start(db.url, ledgerPath, { pollInterval: '50ms', barrier }),
    );
    workers.push(...team);
    await Promise.all(team.map((w) => w.ready()));
    writeFileSync(barrier, '');
    const firedSince = () => team.flatMap((w) => w.events('schedule.fired')).length;
    const startedAt = Date.now();
    while (firedSince() < TICKS_WANTED + 1 && Date.now() - startedAt < 20_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Paused, then every worker stopped: no pass still in flight can insert a tick after this.
    await producer.pauseSchedule(SCHEDULE);
    await Promise.all(team.map((w) => w.terminate()));
    // One more worker finishes whatever the others handed back or left pending.
    const finisher = QueueWorker.start(db.url, ledgerPath, { pollInterval: '50ms' });
    workers.push(finisher);
    for (let i = 0; i < 200; i++) {
      const runs = await tickRuns();
      if (runs.every((r) => r.status === 'completed')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await finisher.terminate();

    const runs = await tickRuns();
    const ids = runs.map((r) => r.runId).sort();
    expect(ids.length).toBeGreaterThan(TICKS_WANTED);
    expect(ids).toContain(killedTick);
    expect(runs.filter((r) => r.status !== 'completed')).toEqual([]);
    // One run per second from the first tick to the last: no tick lost, none twice.
    const ticks = ids.map((id) => Date.parse(id.slice(SCHEDULE.length + 1)));
    expect(ids.every((id) => id.startsWith(`${SCHEDULE}@`))).toBe(true);
    expect(ticks.slice(1).map((t, i) => t - ticks[i])).toEqual(ticks.slice(1).map(() => 1000));
    // Each run was inserted by one process (a second insert of a tick is a no-op) …
    const inserts = workers.flatMap((w) => w.events('schedule.fired').map((e) => e.fields[0]));
    expect([...inserts].sort()).toEqual(ids);
    // … and its step body ran once.
    const bodies = readStepLedger(ledgerPath)
      .map((e) => e.runId)
      .sort();
    expect(bodies).toEqual(ids);
  }, 60_000);
});
