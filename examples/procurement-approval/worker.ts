/**
 * Terminal 2: a worker. Resumes procurement runs when they are due — an approval arrived,
 * or a 7-day window ran out — and prints what it does, until SIGTERM or Ctrl-C, on which it
 * lets steps in flight finish, hands its runs back to the database, and exits 0.
 *
 * `node -r @swc-node/register examples/procurement-approval/worker.ts`
 * (database: `WAYMARK_DATABASE_URL`, default `sqlite:./procurement.db`)
 *
 * Start as many as you like, on as many machines as share the database: each run is
 * claimed by one of them at a time.
 *
 * @module
 */
import 'reflect-metadata';
import { container } from 'tsyringe';
import { Waymark } from 'waymark';
import { DATABASE_URL, printEvents, registerFakes } from './cli';
// Loads the workflow class, so the worker knows how to resume `procurement` runs.
import './ProcurementAgent';

async function main(): Promise<void> {
  registerFakes(container);
  const runtime = await Waymark.create({ database: DATABASE_URL });
  printEvents(runtime);
  runtime.startWorker({ concurrency: 10 });
  runtime.installSignalHandlers({ grace: 10_000 });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => console.log(`${signal}: handing runs over, then exiting`));
  }
  console.log(`worker ${runtime.workerId} polling ${DATABASE_URL}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
