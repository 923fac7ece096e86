import { newRunRowOf, type RunRow } from '../../src/store/rows';
import { RunStore } from '../../src/store/RunStore';
import { StartBatches, type NewRun } from '../../src/store/StartBatches';
import { ALL_BACKENDS } from '../support/databases';
import { migratedDatabase, type MigratedDatabase } from '../support/migratedDatabase';

const LEASE_MS = 60_000;

/** A new run as the acquirer writes it: running, claimed by `owner`, every column set. */
function claimedRow(id: string, args: string, i: number): RunRow {
  return newRunRowOf({
    id,
    workflow: 'starts',
    version: `v${i}`,
    args,
    epoch: 1,
    createdAt: 1_000 + i,
    status: 'running',
    owner: 'a',
    leaseHost: 'host-a',
    leaseProcess: '1:a:test',
    claimToken: `token-${i}`,
    parentRunId: i === 1 ? 'parent' : null,
    deadlineAt: i === 2 ? 9_999 : null,
    startBy: i === 2 ? 8_888 : null,
  });
}

// New runs started at once join one commit (group commit): one statement on PostgreSQL and
// MySQL/MariaDB, one transaction on SQLite. Each lands whole, its lease counted on the
// server's clock; a run stored already answers as its one-run insert would (not created),
// and leaves the stored row as it was.
describe.each(ALL_BACKENDS)('new runs created together on %s', (backend) => {
  let migrated: MigratedDatabase | undefined;
  let store: RunStore;
  let batches: StartBatches;

  beforeAll(async () => {
    migrated = await migratedDatabase(backend);
    const { database } = migrated;
    store = new RunStore(database);
    batches = new StartBatches(database, store);
  });

  afterAll(async () => {
    await migrated?.close();
  });

  it('creates every new run whole, and answers false for the one stored already', async () => {
    const args = ['[1]', '["a\\"b,{c}\'d"]', '[{"x":null}]'];
    const starts: NewRun[] = args.map((a, i) => ({
      row: claimedRow(`${backend}-new-${i}`, a, i),
      leaseMs: LEASE_MS,
    }));
    const existing = claimedRow(`${backend}-stored`, '["first"]', 9);
    await store.insertRun(existing, LEASE_MS);
    const again: NewRun = {
      row: { ...existing, args: '["second"]', claimToken: 'other' },
      leaseMs: null,
    };

    const before = Date.now();
    const landings = await batches.write([starts[0], again, starts[1], starts[2]]);

    expect(landings).toEqual([
      { status: 'fulfilled', value: true },
      { status: 'fulfilled', value: false },
      { status: 'fulfilled', value: true },
      { status: 'fulfilled', value: true },
    ]);
    for (const { row } of starts) {
      const stored = (await store.loadRun(row.id))!;
      const { leaseExpiresAt, leaseExpired, ...rest } = stored;
      // Every column as given; the lease is the server's to count.
      expect(rest).toEqual({
        ...row,
        leaseExpiresAt: undefined,
        leaseExpired: undefined,
        queueName: null,
      });
      expect(leaseExpired).toBe(false);
      // On the server's clock, LEASE_MS from the insert (a second's slack either way).
      expect(Number(leaseExpiresAt)).toBeGreaterThan(before + LEASE_MS - 1_000);
      expect(Number(leaseExpiresAt)).toBeLessThan(Date.now() + LEASE_MS + 1_000);
    }
    const kept = (await store.loadRun(existing.id))!;
    expect([kept.args, kept.claimToken]).toEqual(['["first"]', 'token-9']);
  });

  it('creates a run started twice in one batch once: the second answers false', async () => {
    const row = claimedRow(`${backend}-twice`, '[]', 0);
    const landings = await batches.write([
      { row, leaseMs: LEASE_MS },
      { row: { ...row, claimToken: 'second' }, leaseMs: LEASE_MS },
    ]);
    expect(landings.map((l) => (l.status === 'fulfilled' ? l.value : l.reason))).toEqual([
      true,
      false,
    ]);
    expect((await store.loadRun(row.id))!.claimToken).toBe('token-0');
  });
});
