import { Waymark, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { CliOrders } from './fixtures/CliOrders';
import { waymark } from './support/waymarkCli';

const FIXTURE = 'test/cli/fixtures/CliOrders.ts';

describe('waymark schedules, prune and check on a SQLite file', () => {
  let db: TestDatabase;
  let runtime: WaymarkRuntime;

  beforeAll(async () => {
    db = await createTestDatabase('sqlite-file');
    runtime = await Waymark.create({ database: db.url });
    await runtime.schedule('nightly-charge', {
      cron: '0 2 * * *',
      timezone: 'Europe/Paris',
      workflow: 'cli-charge',
      args: ['nightly'],
    });
  });
  afterAll(async () => {
    await runtime?.close();
    await db?.drop();
  });

  it('lists schedules, pauses, resumes and deletes one; an unknown one fails (exit 1)', async () => {
    const listed = await waymark(['schedules'], { db: db.url });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      /nightly-charge\s+cli-charge\s+0 2 \* \* \* \(Europe\/Paris\)\s+latest\s+active/,
    );
    const paused = await waymark(['schedules', 'pause', 'nightly-charge'], { db: db.url });
    expect(paused.stdout.trim()).toBe('paused schedule "nightly-charge"');
    expect((await runtime.schedules())[0].paused).toBe(true);
    const json = await waymark(['schedules', 'list', '--json'], { db: db.url });
    expect(JSON.parse(json.stdout)).toMatchObject([{ name: 'nightly-charge', paused: true }]);
    await waymark(['schedules', 'resume', 'nightly-charge'], { db: db.url });
    expect((await runtime.schedules())[0].paused).toBe(false);
    const unknown = await waymark(['schedules', 'pause', 'no-such'], { db: db.url });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no schedule named "no-such"');
  });

  it('check reports a schedule whose workflow no loaded module declares (exit 1)', async () => {
    const fine = await waymark(['check', FIXTURE], { db: db.url });
    expect(fine.code).toBe(0);
    await runtime.schedule('orphan', { cron: '* * * * *', workflow: 'gone.workflow' });
    const orphan = await waymark(['check', FIXTURE], { db: db.url });
    expect(orphan.code).toBe(1);
    expect(orphan.stderr).toContain(
      'schedule "orphan" starts workflow "gone.workflow", which no loaded module declares',
    );
    await runtime.deleteSchedule('orphan');
  });

  it('show says a run started with { at } waits for its start time, and when its deadline cancels it', async () => {
    await runtime.start(CliOrders, 'pipeline', ['later'], { at: '1h', deadline: '2h' });
    const shown = await waymark(['show', 'pipeline-later'], { db: db.url });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/waiting for\s+its start time \(start\(\{ at \}\)\)/);
    expect(shown.stdout).toMatch(/run deadline\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
  });

  it('prune deletes ended runs older than --older-than, and refuses a malformed duration (exit 2)', async () => {
    const orders = runtime.container.resolve(CliOrders);
    await orders.pipeline('prune-me');
    const bad = await waymark(['prune', '--older-than', 'a while'], { db: db.url });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--older-than must be a duration');
    const kept = await waymark(['prune', '--older-than', '1d'], { db: db.url });
    expect(kept.stdout.trim()).toBe('deleted 0 runs');
    const pruned = await waymark(['prune', '--older-than', '0ms'], { db: db.url });
    expect(pruned.code).toBe(0);
    expect(pruned.stdout.trim()).toBe('deleted 1 run');
    await expect(runtime.handle('pipeline-prune-me').status()).rejects.toThrow(/no run/);
  });
});
