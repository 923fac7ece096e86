/**
 * Terminal 1: starts a procurement run, waits until it is parked waiting for an approval,
 * and exits. From then on no process holds the run: it lives in the database.
 *
 * `node -r @swc-node/register examples/procurement-approval/start.ts [requestId]`
 * (database: `WAYMARK_DATABASE_URL`, default `sqlite:./procurement.db`)
 *
 * @module
 */
import 'reflect-metadata';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { container } from 'tsyringe';
import { Waymark, type RunHandle, type RunStatus } from 'waymark';
import { DATABASE_URL, ERP_FILE, printEvents, registerFakes } from './cli';
import { ProcurementAgent, type PurchaseRequest } from './ProcurementAgent';

const request: PurchaseRequest = {
  id: process.argv[2] ?? '1042',
  item: 'Standing desk',
  quantity: 4,
  unitPrice: 45_000,
  currency: 'EUR',
  requester: 'ada@acme.example',
  reason: 'the platform team moves to the new floor',
};

async function main(): Promise<number> {
  registerFakes(container);
  const runtime = await Waymark.create({ database: DATABASE_URL });
  try {
    printEvents(runtime);
    // Returns once the run is stored; it executes in the background, in this process.
    const handle = await runtime.start(ProcurementAgent, 'procure', [request]);
    const status = await untilSettled(handle);
    console.log(`run id: ${handle.runId}`);
    if (status === 'waiting' && (await waitsForApproval(handle))) {
      console.log(`status: waiting for approval, stored in ${DATABASE_URL} (ERP: ${ERP_FILE})`);
      console.log(`next:   ${command('worker.ts')}`);
      console.log(`        ${command('approve.ts')} ${handle.runId} [--reject] [--by <approver>]`);
      return 0;
    }
    console.log(`status: ${status}`);
    if (status === 'completed') console.log(`result: ${JSON.stringify(await handle.result())}`);
    return status === 'completed' || status === 'waiting' ? 0 : 1;
  } finally {
    // Nothing is executing here any more: closing hands nothing over, it just disconnects.
    await runtime.close();
  }
}

/** Polls until the run stops executing here: parked, ended, or waiting for an operator. */
async function untilSettled(handle: RunHandle): Promise<RunStatus> {
  for (;;) {
    const status = await handle.status();
    if (status !== 'pending' && status !== 'running') return status;
    await sleep(50);
  }
}

/** How to run a sibling program from where this one was run. */
function command(file: string): string {
  return `node -r @swc-node/register ${relative(process.cwd(), join(__dirname, file))}`;
}

async function waitsForApproval(handle: RunHandle): Promise<boolean> {
  const last = (await handle.history()).at(-1);
  return last?.name === 'signal:approval' && last.status === 'started';
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
