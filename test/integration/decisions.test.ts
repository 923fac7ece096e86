import { container as rootContainer } from 'tsyringe';
import { DataSource } from 'typeorm';
import {
  AlreadyDecidedError,
  InvalidArgumentError,
  dataSourceOptionsFromUrl,
  type RunHandle,
} from 'waymark';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import { digestOfRequest } from '../../src/model/approvalDecision';
import { StagedApprovals } from '../support/fixtures/StagedApprovals';

describe.each(ALL_BACKENDS)('one decision per approval request on %s', (backend) => {
  let db: TestDatabase;
  let database: string | DataSource;
  // Two runtimes on one database, as two console processes deciding at once. On SQLite both
  // deciders share one runtime: two SQLite connections in one process block each other's
  // event loop while one waits for the other's write lock.
  let first: TestRuntime;
  let second: TestRuntime;
  let n = 0;
  const id = (): string => `${backend}-${++n}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    // One in-memory SQLite database that both runtimes share.
    database =
      backend === 'sqlite'
        ? await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize()
        : db.url;
  });
  afterAll(async () => {
    if (database instanceof DataSource) await database.destroy();
    await db.drop();
  });
  beforeEach(async () => {
    const container = rootContainer.createChildContainer();
    first = await createTestRuntime({ database, container });
    second = backend.startsWith('sqlite')
      ? first
      : await createTestRuntime({ database, container, migrate: false });
  });
  afterEach(async () => {
    if (second !== first) await second.close({ grace: 100 });
    await first.close({ grace: 100 });
  });

  /** The seq of the wait the run is parked at, once it is (what the console lists). */
  const openWait = async (handle: RunHandle, after = -1): Promise<number> => {
    for (let i = 0; i < 500; i++) {
      // Status first: a history read before it could predate the wait it reports.
      const waiting = (await handle.status()) === 'waiting';
      const [last] = await handle.history({ order: 'desc', limit: 1 });
      if (waiting && last && last.seq > after) return last.seq;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`run ${handle.runId} never waited after seq ${after}`);
  };

  it('an approve and a reject of one request at once: exactly one wins, the other is refused naming it', async () => {
    const r = id();
    const handle = await first.start(StagedApprovals, 'oneStage', [r]);
    await openWait(handle);
    const outcomes = await Promise.allSettled([
      first.signal(handle.runId, `approve:po-${r}`, { approved: true, decidedBy: 'ana' }),
      second.signal(handle.runId, `approve:po-${r}`, { approved: false, decidedBy: 'ben' }),
    ]);
    const won = outcomes.findIndex((o) => o.status === 'fulfilled');
    const lost = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const winner = won === 0 ? 'ana' : 'ben';
    expect(lost?.reason).toBeInstanceOf(AlreadyDecidedError);
    expect(lost?.reason).toMatchObject({ code: 'ALREADY_DECIDED', decidedBy: winner });
    expect((lost?.reason as Error).message).toMatch(
      new RegExp(`already decided by ${winner} at \\d{4}-\\d\\d-\\d\\dT`),
    );
    expect(await handle.result()).toBe(
      `${winner === 'ana' ? 'approved' : 'rejected'} by ${winner}`,
    );
    expect(await handle.pendingSignals()).toEqual([]);
  });

  it('a decision sent again with its idempotency key is a duplicate, not refused', async () => {
    const r = id();
    const handle = await first.start(StagedApprovals, 'oneStage', [r]);
    await openWait(handle);
    const approve = () =>
      first.signal(
        handle.runId,
        `approve:po-${r}`,
        { approved: true, decidedBy: 'ana' },
        { idempotencyKey: 'click-1' },
      );
    expect(await approve()).toEqual({ duplicate: false });
    expect(await handle.result()).toBe('approved by ana');
    expect(await approve()).toEqual({ duplicate: true });
  });

  it("two managers approving stage 1 at once never approve the director's stage 2", async () => {
    const r = id();
    const handle = await first.start(StagedApprovals, 'twoStage', [r]);
    // Awaiting the result here resumes the run once a decision wakes it.
    const result = handle.result();
    const stage1 = await openWait(handle);
    const outcomes = await Promise.allSettled(
      [first, second].map((runtime, i) =>
        runtime.signal(handle.runId, `approve:po-${r}`, {
          approved: true,
          decidedBy: `manager-${i}`,
          waitSeq: stage1,
        }),
      ),
    );
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused?.reason).toBeInstanceOf(AlreadyDecidedError);
    const stage2 = await openWait(handle, stage1);
    expect(await handle.status()).toBe('waiting');
    expect(await handle.pendingSignals()).toEqual([]);

    // A late click on stage 1, arriving while stage 2 waits, is refused too.
    const late = await second
      .signal(handle.runId, `approve:po-${r}`, { approved: true, waitSeq: stage1 })
      .catch((error: unknown) => error);
    expect(late).toBeInstanceOf(AlreadyDecidedError);
    expect(await handle.status()).toBe('waiting');

    await first.signal(handle.runId, `approve:po-${r}`, {
      approved: true,
      decidedBy: 'director',
      waitSeq: stage2,
    });
    const [manager, director] = await result;
    expect(manager).toMatch(/^manager-[01]$/);
    expect(director).toBe('director');
  });

  it('a decision for a request already answered, or for a wait the run never had, is refused and not stored', async () => {
    const r = id();
    const handle = await first.start(StagedApprovals, 'oneStage', [r]);
    const seq = await openWait(handle);
    await expect(
      first.signal(handle.runId, `approve:po-${r}`, { approved: true, waitSeq: seq + 5 }),
    ).rejects.toThrow(
      `signal(): "approve:po-${r}" for the wait at seq ${seq + 5} is refused: run "${handle.runId}" does not wait there (it waits at seq ${seq})`,
    );
    await expect(
      first.signal(handle.runId, 'approve:po-other', { approved: true }),
    ).rejects.toThrow(InvalidArgumentError);
    await first.signal(handle.runId, `approve:po-${r}`, { approved: true, decidedBy: 'cy' });
    expect(await handle.result()).toBe('approved by cy');
    // The run has ended: refused as ended. A run still going is refused as decided, below.
    await expect(
      first.signal(handle.runId, `approve:po-${r}`, { approved: false }),
    ).rejects.toThrow('already completed');

    const two = await first.start(StagedApprovals, 'twoStage', [id()]);
    const ended = two.result();
    const stage1 = await openWait(two);
    await first.signal(two.runId, `approve:${two.runId.replace('two-stage-', 'po-')}`, {
      approved: true,
      waitSeq: stage1,
    });
    await openWait(two, stage1);
    const again = await second
      .signal(two.runId, `approve:${two.runId.replace('two-stage-', 'po-')}`, {
        approved: false,
        decidedBy: 'dan',
        waitSeq: stage1,
      })
      .catch((error: unknown) => error);
    expect(again).toMatchObject({ code: 'ALREADY_DECIDED', decidedBy: 'unknown' });
    expect(await two.pendingSignals()).toEqual([]);
    await first.signal(two.runId, `approve:${two.runId.replace('two-stage-', 'po-')}`, {
      approved: true,
    });
    await ended;
  });

  it('a decision carrying the digest of other arguments than those proposed is refused, and not stored', async () => {
    const r = id();
    const handle = await first.start(StagedApprovals, 'proposedRefund', [r, 150]);
    const result = handle.result();
    const waitSeq = await openWait(handle);
    const [request] = await handle.history({ from: waitSeq - 1, limit: 1, valueChars: Infinity });
    const digest = digestOfRequest(request.output!.json);
    const other = digestOfRequest(request.output!.json.replace('150', '1500'));
    await expect(
      second.signal(handle.runId, `approve:po-${r}`, { approved: true, waitSeq, digest: other }),
    ).rejects.toThrow(
      `is refused: run "${handle.runId}" waits on a request with digest ${digest}; reload it and decide again`,
    );
    expect(await handle.pendingSignals()).toEqual([]);
    await second.signal(handle.runId, `approve:po-${r}`, { approved: true, waitSeq, digest });
    await expect(result).resolves.toBe(true);
  });

  it('plain signals keep queueing for a later wait', async () => {
    const r = id();
    const handle = await first.start(StagedApprovals, 'oneStage', [r]);
    await openWait(handle);
    await first.signal(handle.runId, 'note', { text: 'queued' });
    await second.signal(handle.runId, 'note', { text: 'queued too' });
    expect((await handle.pendingSignals('note')).map((s) => s.name)).toEqual(['note', 'note']);
  });
});
