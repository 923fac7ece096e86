import { LeaseLostError } from 'waymark';
import type { LeaseHolder } from '../../src/ground/ProcessIdentity';
import { FinishBatches, type FencedFinish } from '../../src/store/FinishBatches';
import { Leases } from '../../src/store/Leases';
import { newRunRowOf } from '../../src/store/rows';
import { RunStore, type RunFinish } from '../../src/store/RunStore';
import { ALL_BACKENDS } from '../support/databases';
import { migratedDatabase, type MigratedDatabase } from '../support/migratedDatabase';

const LEASE_MS = 30_000;

const holder = (owner: string): LeaseHolder => ({
  owner,
  host: `host-${owner}`,
  process: `1:${owner}:test`,
});

const ENDINGS: RunFinish[] = [
  { status: 'completed', result: '{"n":1}', error: null, parkedReason: null },
  { status: 'failed', result: null, error: '{"message":"boom"}', parkedReason: null },
  { status: 'needs_attention', result: null, error: '{"message":"stuck"}', parkedReason: 'stuck' },
  // A result with quotes, a backslash, a comma and braces: what an array or CASE could mangle.
  { status: 'completed', result: '"a\\"b,{c}\'d"', error: null, parkedReason: null },
];

// Runs' endings joined in one commit (group commit): one statement on PostgreSQL and
// MySQL/MariaDB, one transaction on SQLite. Each run's ending lands with its own values, and
// a run another process has claimed since fails alone, as its one-run update would.
describe.each(ALL_BACKENDS)('runs’ endings written together on %s', (backend) => {
  let migrated: MigratedDatabase | undefined;
  let store: RunStore;
  let leases: Leases;
  let batches: FinishBatches;

  beforeAll(async () => {
    migrated = await migratedDatabase(backend);
    const { database } = migrated;
    store = new RunStore(database);
    leases = new Leases(database, store);
    batches = new FinishBatches(database);
  });

  afterAll(async () => {
    await migrated?.close();
  });

  /** A run claimed by `owner`, at the epoch its claim returned. */
  async function claim(runId: string, owner: string): Promise<number> {
    const run = (await store.loadRun(runId))!;
    const claimed = await leases.claim(run, holder(owner), `${owner}-token`, LEASE_MS, Date.now());
    expect(claimed).toBeDefined();
    return claimed!.epoch;
  }

  async function claimedRun(runId: string): Promise<number> {
    const row = newRunRowOf({
      id: runId,
      workflow: 'ending',
      version: null,
      args: '[]',
      epoch: 0,
      createdAt: Date.now(),
    });
    await store.insertRun(row, null);
    return claim(runId, 'a');
  }

  it('stores each run’s own ending and fails only the run taken over since', async () => {
    const ids = ENDINGS.map((_, i) => `${backend}-end-${i}`);
    const victim = `${backend}-end-victim`;
    const finishes: FencedFinish[] = [];
    for (const [i, runId] of ids.entries()) {
      finishes.push({ runId, epoch: await claimedRun(runId), finish: ENDINGS[i], now: 1000 + i });
    }
    const lostEpoch = await claimedRun(victim);
    const takenEpoch = await claim(victim, 'b');
    expect(takenEpoch).toBeGreaterThan(lostEpoch);
    // The victim in the middle of the batch, as the runs' order puts it anywhere.
    finishes.splice(2, 0, { runId: victim, epoch: lostEpoch, finish: ENDINGS[0], now: 999 });

    const landings = await batches.write(finishes);

    expect(landings.map((l) => l.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    const refused = landings[2] as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(LeaseLostError);
    expect((refused.reason as LeaseLostError).runId).toBe(victim);
    for (const [i, runId] of ids.entries()) {
      const row = (await store.loadRun(runId))!;
      expect([row.status, row.result, row.error, row.parkedReason, row.owner]).toEqual([
        ENDINGS[i].status,
        ENDINGS[i].result,
        ENDINGS[i].error,
        ENDINGS[i].parkedReason,
        null,
      ]);
      expect(row.leaseExpiresAt).toBeNull();
      expect(Number(row.updatedAt)).toBe(1000 + i);
    }
    // The run taken over is untouched: still running, held by the runtime that took it.
    const taken = (await store.loadRun(victim))!;
    expect([taken.status, taken.owner, taken.epoch]).toEqual(['running', 'b', takenEpoch]);
  });

  it('answers every run taken over when none of the batch still holds its run', async () => {
    const ids = [`${backend}-gone-1`, `${backend}-gone-2`];
    const finishes: FencedFinish[] = [];
    for (const runId of ids) {
      const epoch = await claimedRun(runId);
      await claim(runId, 'b');
      finishes.push({ runId, epoch, finish: ENDINGS[0], now: 1 });
    }
    const landings = await batches.write(finishes);
    expect(landings.map((l) => l.status)).toEqual(['rejected', 'rejected']);
    for (const runId of ids) expect((await store.loadRun(runId))!.status).toBe('running');
  });
});
