import { Waymark, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { CliOrders } from './fixtures/CliOrders';
import { CliSupport, deployReorderedSupport } from './fixtures/CliSupport';
import { waymark, type CliResult } from './support/waymarkCli';

const json = <T>(result: CliResult): T => JSON.parse(result.stdout) as T;
const LONG_REPLY = `Thanks for writing in. ${'We are on it. '.repeat(30)}`;

interface ShownJson {
  run: { runId: string; status: string; args: unknown; parkedReason: string | null };
  waitingReason: string | null;
  outcome: { result: unknown } | { error: { name: string; message: string } } | null;
  steps: Array<{ seq: number; name: string; idempotencyKey: string | null; output?: unknown }>;
}

// SQLite and a server database: the columns of migration M0007 on two dialects.
describe.each<Backend>(['sqlite-file', 'postgres'])(
  'waymark show: what happened (%s)',
  (backend) => {
    let db: TestDatabase;
    let runtime: WaymarkRuntime;
    const cli = (...args: string[]): Promise<CliResult> => waymark(args, { db: db.url });

    async function untilWaiting(runId: string): Promise<void> {
      for (let i = 0; (await runtime.handle(runId).status()) !== 'waiting'; i++) {
        if (i > 200) throw new Error(`run ${runId} never started waiting`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }

    beforeAll(async () => {
      db = await createTestDatabase(backend);
      runtime = await Waymark.create({ database: db.url });
      deployReorderedSupport(false);
      await runtime.run(CliSupport, 'answer', ['t1', LONG_REPLY]);
      await expect(runtime.run(CliSupport, 'answer', ['fail-t2', 'hi'])).rejects.toThrow(
        'the ticket system refused fail-t2',
      );
      // The new code calls `classify` where the stored history has `lookup`.
      deployReorderedSupport(true);
      try {
        const retried = await runtime.retry('support-fail-t2');
        await expect(retried.result()).rejects.toThrow('is not replayable at step #0');
      } finally {
        deployReorderedSupport(false);
      }
      await expect(runtime.run(CliSupport, 'answer', ['fail-t3', 'hi'])).rejects.toThrow(
        'the ticket system refused fail-t3',
      );
      await runtime.start(CliOrders, 'approve', ['delivered']);
      await runtime.start(CliOrders, 'approve', ['late']);
      await untilWaiting('approval-delivered');
      await untilWaiting('approval-late');
    });
    afterAll(async () => {
      await runtime?.close({ grace: 0 });
      await db?.drop();
    });

    it('prints the arguments, each step’s output (cut) and the key the step used', async () => {
      const shown = await cli('show', 'support-t1');
      expect(shown.code).toBe(0);
      expect(shown.stdout).toMatch(
        /^arguments\s+\["t1","Thanks for writing in\. We .*… \(\d+ chars\)$/m,
      );
      expect(shown.stdout).toMatch(
        /^SEQ\s+STEP\s+STATUS\s+ATTEMPTS\s+DURATION\s+IDEMPOTENCY KEY\s+OUTPUT\s+ERROR$/m,
      );
      expect(shown.stdout).toMatch(
        /^0\s+lookup\s+completed\s+1\s+\S+\s+support-t1:0\s+"ticket t1"$/m,
      );
      // The key @Idempotent({ key }) gave, not support-t1:1; the 496-character output cut at 60.
      expect(shown.stdout).toMatch(
        /^1\s+email\s+completed\s+1\s+\S+\s+support-t1:email-t1\s+\{"to":"customer-t1@example\.com","body":"ticket t1: Thanks fo… \(496 chars\)$/m,
      );
      expect(shown.stdout).toMatch(
        /^2\s+close\s+completed\s+1\s+\S+\s+support-t1:2\s+"closed t1"$/m,
      );
    });

    it('prints how an ended run ended: its result, or the error it failed with', async () => {
      const [done, failed, waiting] = await Promise.all([
        cli('show', 'support-t1'),
        cli('show', 'support-fail-t3'),
        cli('show', 'approval-delivered'),
      ]);
      expect(done.stdout).toMatch(/^result\s+"closed t1"$/m);
      expect(failed.stdout).toMatch(/^status\s+failed$/m);
      expect(failed.stdout).toMatch(/^error\s+\S*Error.*: the ticket system refused fail-t3/m);
      expect(waiting.stdout).not.toMatch(/^(result|error)\s/m);
      expect(json<ShownJson>(await cli('show', 'support-t1', '--json')).outcome).toEqual({
        result: 'closed t1',
      });
      const shown = json<ShownJson>(await cli('show', 'support-fail-t3', '--json')).outcome;
      expect(shown).toEqual({
        error: expect.objectContaining({
          message: expect.stringContaining('the ticket system refused fail-t3'),
        }),
      });
      // As stored: without the line a caller's re-throw of it carries.
      expect(shown).not.toMatchObject({ error: { message: expect.stringContaining('↳ run') } });
      expect(json<ShownJson>(await cli('show', 'approval-delivered', '--json')).outcome).toBeNull();
    });

    it('--json carries the arguments and outputs whole, as JSON', async () => {
      const shown = json<ShownJson>(await cli('show', 'support-t1', '--json'));
      expect(shown.run.args).toEqual(['t1', LONG_REPLY]);
      expect(shown.steps).toEqual([
        expect.objectContaining({ seq: 0, output: 'ticket t1', idempotencyKey: 'support-t1:0' }),
        expect.objectContaining({
          seq: 1,
          name: 'email',
          idempotencyKey: 'support-t1:email-t1',
          output: { to: 'customer-t1@example.com', body: `ticket t1: ${LONG_REPLY}` },
        }),
        expect.objectContaining({ seq: 2, output: 'closed t1' }),
      ]);
    });

    it('says why a run was parked: the NonDeterminismError a deploy caused', async () => {
      const [text, shown] = await Promise.all([
        cli('show', 'support-fail-t2'),
        cli('show', 'support-fail-t2', '--json'),
      ]);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^status\s+needs_attention$/m);
      expect(text.stdout).toMatch(
        /^parked because\s+NonDeterminismError \[NON_DETERMINISM\]: run "support-fail-t2" is not replayable at step #0: history has "lookup", the code now calls "classify"\. Use patched\(\) for code changes that reorder steps\.$/m,
      );
      expect(json<ShownJson>(shown).run).toMatchObject({
        status: 'needs_attention',
        parkedReason: expect.stringMatching(
          /^NonDeterminismError \[NON_DETERMINISM\]: run "support-fail-t2"/,
        ),
      });
    });

    it('after a signal is delivered, says so until a worker resumes the run; a passed timeout too', async () => {
      const before = await cli('show', 'approval-delivered');
      expect(before.stdout).toMatch(
        /^waiting for\s+signal "approval", or its timeout \(due in \S+\)$/m,
      );

      const sent = await cli('signal', 'approval-delivered', 'approval', '{"approved": true}');
      expect(sent.code).toBe(0);
      // The signal's timeout passed while no worker ran: as a database looks then.
      await runtime.dataSource.query(
        backend === 'postgres'
          ? 'UPDATE waymark_runs SET wake_at = $1 WHERE id = $2'
          : 'UPDATE waymark_runs SET wake_at = ? WHERE id = ?',
        [Date.now() - 5 * 60_000, 'approval-late'],
      );
      const [delivered, late] = await Promise.all([
        cli('show', 'approval-delivered'),
        cli('show', 'approval-late'),
      ]);
      expect(delivered.stdout).toMatch(
        /^waiting for\s+a worker to resume it: signal "approval" was delivered (just now|\S+ ago)$/m,
      );
      expect(delivered.stdout).not.toContain('timeout');
      expect(late.stdout).toMatch(
        /^waiting for\s+a worker to resume it: signal "approval" timed out 5m(\d+s)? ago$/m,
      );
    });
  },
);
