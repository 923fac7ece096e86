import { spawnSync } from 'node:child_process';
import { container as rootContainer } from 'tsyringe';
import { createTestRuntime, SimulatedCrash } from 'waymark/testing';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { EffectLedger, TravelAgent } from '../support/fixtures/TravelAgent';
import { waymark } from './support/waymarkCli';

const RUN_ID = 'trip-left-running';

describe('read-only commands on a database with a run a stopped process left running', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('sqlite-file');
    const scope = rootContainer.createChildContainer();
    scope.registerInstance(EffectLedger, new EffectLedger());
    const runtime = await createTestRuntime({ database: db.url, container: scope });
    runtime.crash.afterCommit('TravelAgent.normalize');
    await expect(
      scope.resolve(TravelAgent).plan({ requestId: 'left-running', city: 'Oslo', nights: 2 }),
    ).rejects.toThrow(SimulatedCrash);
    await runtime.close();
    // The holder was a process of this host that has exited since, as after a SIGKILL.
    const { pid } = spawnSync(process.execPath, ['-e', '']);
    const reopened = await createTestRuntime({ database: db.url });
    await reopened.dataSource.query('UPDATE waymark_runs SET lease_process = ? WHERE id = ?', [
      `${pid}::gone`,
      RUN_ID,
    ]);
    await reopened.close();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it.each([
    ['runs', []],
    ['show', [RUN_ID]],
  ])('waymark %s prints no notice of runs left running', async (command, args) => {
    const result = await waymark([command, ...args], { db: db.url });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(RUN_ID);
    expect(result.stderr).toBe('');
  });
});
