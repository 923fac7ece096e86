import { Waymark } from 'waymark';
import type { RunDetailResponse } from '../../src/console';
import { waymark, waymarkPiped } from '../cli/support/waymarkCli';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { seedHistory } from '../support/seedHistory';
import { ConsoleProcess } from './support/ConsoleProcess';

const STEPS = 200_000;
const RUN_ID = 'long-run';
const MB = 2 ** 20;

describe.each<Backend>(['sqlite-file', 'postgres'])(
  'a run with 200,000 steps of about 1 KB on %s',
  (backend) => {
    let db: TestDatabase;
    let served: ConsoleProcess;
    let base: { url: string; token: string };

    beforeAll(async () => {
      db = await createTestDatabase(backend);
      const runtime = await Waymark.create({ database: db.url });
      try {
        // Written with SQL, not by executing 200,000 steps.
        await seedHistory(runtime.dataSource, {
          runId: RUN_ID,
          steps: STEPS,
          outputBytes: 1000,
          failed: [3, 150_000, STEPS - 1],
          error: JSON.stringify({
            $wm: 'Error',
            name: 'Error',
            message: `boom ${'!'.repeat(5000)}`,
          }),
          status: 'failed',
        });
      } finally {
        await runtime.close();
      }
      served = new ConsoleProcess(db.url);
      base = await served.next<{ url: string; token: string }>();
    }, 120_000);
    afterAll(async () => {
      await served?.stop();
      await db?.drop();
    });

    const get = async (path: string): Promise<{ status: number; bytes: number; text: string }> => {
      const response = await fetch(`${base.url}${path}`, {
        headers: { authorization: `Bearer ${base.token}` },
      });
      const text = await response.text();
      return { status: response.status, bytes: Buffer.byteLength(text), text };
    };

    it('the console answers page by page, each answer under 1 MB, its memory growing under 200 MB', async () => {
      // Warm up what every request uses (code, connections), then take the baseline.
      await get('api/runs');
      await get(`api/runs/${RUN_ID}?limit=500`);
      const before = await served.mark();
      const sizes: number[] = [];
      const seqs: number[] = [];
      for (let from: number | null = 0; from !== null;) {
        const page = await get(`api/runs/${RUN_ID}?from=${from}&limit=500`);
        expect(page.status).toBe(200);
        sizes.push(page.bytes);
        const body = JSON.parse(page.text) as RunDetailResponse;
        for (const step of body.steps) seqs.push(step.seq);
        from = body.nextFrom ?? null;
      }
      // What the page asks for when a run is picked, four tabs at once.
      const heads = await Promise.all([1, 2, 3, 4].map(() => get(`api/runs/${RUN_ID}`)));
      sizes.push(...heads.map((head) => head.bytes));
      const list = await get('api/runs');
      sizes.push(list.bytes);
      const after = await served.memory();

      expect(seqs).toHaveLength(STEPS);
      expect(seqs[STEPS - 1]).toBe(STEPS - 1);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(1 * MB);
      // The peak resident size while serving, over the warmed-up process's. (In CI runs the
      // process's lifetime peak, maxRss, read 107-154 MB over the baseline where a run of
      // this file alone reads 25-29 MB; the sampled peak since the mark leaves start-up out.)
      expect((after.peakRss - before.rss) / MB).toBeLessThanOrEqual(200);
      const head = JSON.parse(heads[0].text) as RunDetailResponse;
      expect(head.steps).toHaveLength(200);
      expect(head.nextFrom).toBe(200);
      expect(head.steps[3].error!.message).toMatch(/^boom !{995}… \(4005 more characters\)$/);
    });

    it('waymark show prints every step, and ends quietly when its reader goes away', async () => {
      const shown = await waymark(['show', RUN_ID], { db: db.url, timeoutMs: 110_000 });
      expect(shown.stderr).toBe('');
      expect(shown.code).toBe(0);
      const rows = shown.stdout.split('\n').filter((line) => /^\d+ /.test(line));
      expect(rows).toHaveLength(STEPS);
      expect(rows[STEPS - 1]).toMatch(
        // The message read is its first 1,000 characters (`--whole` for all of it).
        /^199999 +step +failed +1 +5ms +long-run:199999 +Error: boom !+… \(4005 more characters\)$/,
      );
      const head = await waymarkPiped(['show', RUN_ID], 'head -3', { db: db.url });
      expect(head.stderr).toBe('');
      expect(head.code).toBe(0);
    }, 120_000);
  },
);
