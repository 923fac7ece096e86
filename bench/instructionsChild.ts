/**
 * The child of bench/instructions.sh: warms up with 1,500 steps, then runs `<steps>` more in
 * one run of the bench's Sequence workflow on `<database-url>`, and exits.
 */
import 'reflect-metadata';
import { Waymark } from 'waymark';
import { Sequence } from './fixtures/Sequence';
import { freshId } from './lib/workload';
import { quiet } from './systems/waymark';

async function main(): Promise<void> {
  const [database, steps] = process.argv.slice(2);
  if (!database || !steps) throw new Error('usage: instructionsChild.ts <database-url> <steps>');
  const runtime = await Waymark.create({ database, logger: quiet });
  await runtime.run(Sequence, 'run', [freshId('warm'), 1500]);
  if (Number(steps) > 0) await runtime.run(Sequence, 'run', [freshId('count'), Number(steps)]);
  await runtime.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
