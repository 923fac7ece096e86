import { postgresArray } from '../../src/store/postgresArray';
import { newRunRowOf, type StepRow } from '../../src/store/rows';
import { RunStore } from '../../src/store/RunStore';
import { StepBatches } from '../../src/store/StepBatches';
import { LeaseLostError } from '../../src/errors/LeaseLostError';
import { completedStepRow } from '../support/completedStepRow';
import { ALL_BACKENDS } from '../support/databases';
import { migratedDatabase, type MigratedDatabase } from '../support/migratedDatabase';

/** Values an array literal, a multi-row statement or an escape could mangle. */
const AWKWARD = [
  '{"text":"x","n":[1,2]}',
  '"a\\"b,{c}\'d"',
  'back\\slash\\\\',
  'NULL',
  '',
  ' spaced , out ',
  'line\nbreak\ttab',
  'ünïcødé ✓ 𝄞',
];

// Checkpoints written together in one commit (group commit): every value lands as it was
// sent, whatever it holds.
describe.each(ALL_BACKENDS)('checkpoints written together on %s', (backend) => {
  let db: MigratedDatabase;
  let store: RunStore;
  let batches: StepBatches;

  beforeAll(async () => {
    db = await migratedDatabase(backend);
    store = new RunStore(db.database);
    batches = new StepBatches(db.database, store);
  });

  afterAll(async () => {
    await db?.close();
  });

  /** Stores run `id` as held under `epoch`. */
  const insertRun = (id: string, epoch: number): Promise<boolean> =>
    store.insertRun(
      newRunRowOf({
        id,
        workflow: 'batch',
        version: null,
        args: '[]',
        epoch,
        createdAt: Date.now(),
      }),
      null,
    );

  it('stores each row’s own values, quotes, backslashes, braces and all', async () => {
    const runIds = ['run "quoted"', 'run\\slash', 'run,{comma}'];
    for (const id of runIds) await insertRun(id, 1);
    const steps = AWKWARD.map((output, i): { row: StepRow; epoch: number } => ({
      row: {
        runId: runIds[i % runIds.length],
        seq: i,
        name: `step ${AWKWARD[(i + 1) % AWKWARD.length]}`,
        status: 'completed',
        output,
        attempts: 1 + i,
        startedAt: 1_733_550_000_000 + i,
        finishedAt: i % 2 === 0 ? null : 1_733_550_000_500 + i,
        idempotencyKey: i % 3 === 0 ? null : `key ${AWKWARD[i]}`,
      },
      epoch: 1,
    }));
    const landings = await batches.write(steps);
    expect(landings.map((l) => l.status)).toEqual(steps.map(() => 'fulfilled'));
    for (const { row } of steps) {
      await expect(store.loadStep(row.runId, row.seq)).resolves.toEqual(
        expect.objectContaining({
          output: row.output,
          name: row.name,
          attempts: row.attempts,
          startedAt: row.startedAt,
          finishedAt: row.finishedAt,
          idempotencyKey: row.idempotencyKey,
        }),
      );
    }
  });

  it('answers each row for itself when the batch holds a stored seq, a lost fence and a seq sent twice', async () => {
    for (const id of ['held', 'lost']) await insertRun(`${id} ${backend}`, 2);
    const held = `held ${backend}`;
    const stored = completedStepRow(held, 0, '"first"');
    await store.insertStep(stored, 2);
    const landings = await batches.write([
      { row: completedStepRow(held, 0, '"second"'), epoch: 2 },
      { row: completedStepRow(held, 1, '"one"'), epoch: 2 },
      { row: completedStepRow(`lost ${backend}`, 0, '"fenced"'), epoch: 1 },
      { row: completedStepRow(held, 2, '"twice"'), epoch: 2 },
      { row: completedStepRow(held, 2, '"twice"'), epoch: 2 },
    ]);
    expect(landings.slice(0, 2)).toEqual([
      { status: 'fulfilled', value: 'duplicate' },
      { status: 'fulfilled', value: 'inserted' },
    ]);
    expect(landings[2]).toEqual({ status: 'rejected', reason: expect.any(LeaseLostError) });
    // The seq sent twice went in once: one of its rows is stored, the other a duplicate.
    expect(landings.slice(3).map((l) => (l.status === 'fulfilled' ? l.value : l.reason))).toEqual(
      expect.arrayContaining(['inserted', 'duplicate']),
    );
    await expect(store.loadStep(held, 0)).resolves.toEqual(
      expect.objectContaining({ output: '"first"' }),
    );
    await expect(store.loadStep(held, 1)).resolves.toEqual(
      expect.objectContaining({ output: '"one"' }),
    );
    await expect(store.loadStep(`lost ${backend}`, 0)).resolves.toBeUndefined();
  });

  it('stores the rows whose fence holds when others in the batch are fenced out', async () => {
    await insertRun(`kept ${backend}`, 3);
    await insertRun(`taken ${backend}`, 4);
    const kept = `kept ${backend}`;
    const landings = await batches.write([
      { row: completedStepRow(kept, 0, '"a"'), epoch: 3 },
      { row: completedStepRow(`taken ${backend}`, 0, '"stale"'), epoch: 3 },
      { row: completedStepRow(kept, 1, '"b"'), epoch: 3 },
      { row: completedStepRow(`missing ${backend}`, 0, '"none"'), epoch: 1 },
    ]);
    expect(landings[0]).toEqual({ status: 'fulfilled', value: 'inserted' });
    expect(landings[1]).toEqual({ status: 'rejected', reason: expect.any(LeaseLostError) });
    expect(landings[2]).toEqual({ status: 'fulfilled', value: 'inserted' });
    expect(landings[3]).toEqual({ status: 'rejected', reason: expect.any(LeaseLostError) });
    await expect(store.loadStep(kept, 1)).resolves.toEqual(
      expect.objectContaining({ output: '"b"' }),
    );
    await expect(store.loadStep(`taken ${backend}`, 0)).resolves.toBeUndefined();
  });

  if (backend === 'postgres') {
    it('sends array literals that PostgreSQL reads back as the same values', async () => {
      const values = [...AWKWARD, null];
      const [{ texts }] = await db.database.dataSource.query<
        Array<{ texts: Array<string | null> }>
      >('SELECT $1::text[] AS texts', [postgresArray(values)]);
      expect(texts).toEqual(values);
    });
  }
});
