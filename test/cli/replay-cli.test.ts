import { Waymark, type WaymarkRuntime } from 'waymark';
import type { ReplayReport } from 'waymark';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { CliBriefs } from './fixtures/CliBriefs';
import { waymark } from './support/waymarkCli';

const FIXTURE = 'test/cli/fixtures/CliBriefs.ts';

describe('waymark replay', () => {
  let db: TestDatabase;
  let runtime: WaymarkRuntime;
  const topics = ['a', 'b', 'c'];

  beforeAll(async () => {
    db = await createTestDatabase('sqlite-file');
    runtime = await Waymark.create({ database: db.url });
    for (const topic of topics) await runtime.run(CliBriefs, 'write', [topic]);
  });
  afterAll(async () => {
    await runtime.close();
    await db.drop();
  });

  it('replays a cohort with one override and prints per run what changed', async () => {
    const args = ['replay', '--module', FIXTURE, '--workflow', 'cli-brief', '--since', '1h'];
    const result = await waymark(
      [...args, '--status', 'completed', '--from', '1', '--override', '0="new facts"'],
      {
        db: db.url,
        timeoutMs: 60_000,
      },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const topic of topics) {
      expect(lines).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^brief-${topic} → brief-${topic}:replay-[0-9a-f]{8}: result changed; 2 steps differ ` +
              '\\(#0 facts, #2 model:fake-1\\); model calls: 1 replayed, 1 called$',
          ),
        ),
      );
    }
    // The replays are forks: a second cohort replay picks the three originals only.
    const again = await waymark([...args, '--from', '1', '--json'], {
      db: db.url,
      timeoutMs: 60_000,
    });
    expect(again.code).toBe(0);
    const { replays } = JSON.parse(again.stdout) as { replays: ReplayReport[] };
    expect(replays.map((r) => r.sourceRunId).sort()).toEqual(topics.map((t) => `brief-${t}`));
    for (const report of replays) {
      expect(report.result.changed).toBe(false);
      expect(report.modelCalls).toEqual({ replayed: [1, 2], called: [] });
    }
  });

  it('needs a run id or a --workflow (exit 2)', async () => {
    const result = await waymark(['replay', '--module', FIXTURE, '--from', '1'], { db: db.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('give a run id, or --workflow for a cohort of runs');
  });
});
