import type { SimBackend } from './sim/FaultPlan';
import { runSchedule } from './sim/runSchedule';

/**
 * The seeded fault simulator in CI: a fixed range of seeds per backend, each a schedule of
 * lost connections, lost acknowledgements, connections cut inside transactions, delayed
 * replies, outages, skewed clocks, SIGKILL and SIGSTOP of real worker processes (SQLite:
 * busy, full and I/O errors in its driver), checked against the invariants afterwards. A
 * failing seed prints its plan and its faults; `npm run test:faults -- --backend <b> --seed <n>`
 * replays it. `npm run test:faults -- --long` runs many more.
 */
const SEEDS = (process.env.WAYMARK_SIM_SEEDS ?? '1-3').split('-').map(Number);
const BACKENDS: SimBackend[] = ['sqlite-file', 'mariadb', 'postgres'];
const seeds = Array.from({ length: SEEDS[1] - SEEDS[0] + 1 }, (_, i) => SEEDS[0] + i);

describe.each(BACKENDS)('the fault simulator on %s', (backend) => {
  it.each(seeds)(
    'seed %i: every invariant holds',
    async (seed) => {
      const outcome = await runSchedule(seed, backend);
      if (outcome.violations.length > 0) throw new Error(outcome.report);
    },
    240_000,
  );
});
