/**
 * The child of bench/instructions.sh: warms up with 1,500 steps, then runs `<steps>` more in
 * one run of the bench's Sequence workflow on `<database-url>`, and exits. With `<runs>`
 * above 1, the warm-up and the steps are split over that many runs started at once (their
 * checkpoints share commits).
 */
import 'reflect-metadata';
import { Waymark } from 'waymark';
import { Sequence } from './fixtures/Sequence';
import { freshId } from './lib/workload';
import { quiet } from './systems/waymark';

async function main(): Promise<void> {
  const [database, steps, runs = '1'] = process.argv.slice(2);
  if (!database || !steps) {
    throw new Error('usage: instructionsChild.ts <database-url> <steps> [runs]');
  }
  const runtime = await Waymark.create({ database, logger: quiet });
  const atOnce = (name: string, total: number): Promise<unknown> =>
    Promise.all(
      Array.from({ length: Number(runs) }, () =>
        runtime.run(Sequence, 'run', [freshId(name), Math.round(total / Number(runs))]),
      ),
    );
  await atOnce('warm', 1500);
  if (Number(steps) > 0) await atOnce('count', Number(steps));
  await runtime.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
