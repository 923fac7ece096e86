import type { Backend } from '../../support/databases';
import { describeFailures, runCrashHarness, settingsFromEnv } from './Harness';

/** Kills per backend in `npm test`; `WAYMARK_CRASH_KILLS` raises it (the long run uses 1,000). */
const DEFAULT_KILLS = 50;

/**
 * The jest suite of the randomized SIGKILL harness on one backend; one test file per
 * backend, so jest runs them side by side.
 */
export function describeRandomizedSigkill(backend: Backend): void {
  describe(`the mixed workflow in child processes killed with SIGKILL at random moments on ${backend}`, () => {
    it('ends every run as an uninterrupted run did: same result and steps, one charge, one mail, one approval consumed, no attempt over budget', async () => {
      const settings = settingsFromEnv(DEFAULT_KILLS);
      const report = await runCrashHarness({ backend, ...settings });
      const { kills } = settings;
      if (report.failures.length > 0 || report.kills < kills) {
        throw new Error(describeFailures(report));
      }
      expect(report.counts).toEqual({ duplicate: 0, lost: 0, budget: 0, mismatch: 0 });
      expect(report.runsCompleted).toBeGreaterThan(1);
    }, 300_000);
  });
}
