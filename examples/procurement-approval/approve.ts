/**
 * Terminal 3: the approver's answer. Sends the `approval` signal to a waiting run and exits;
 * a worker resumes the run. Needs no workflow code: a signal is a row in the database.
 *
 * `node -r @swc-node/register examples/procurement-approval/approve.ts <runId> [--reject] [--by <approver>]`
 * (database: `WAYMARK_DATABASE_URL`, default `sqlite:./procurement.db`)
 *
 * Exits 1 with a one-line error for an unknown run id or a run that has already ended.
 *
 * @module
 */
import 'reflect-metadata';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { isRunFinishedError, isRunNotFoundError, Waymark } from 'waymark';
import { DATABASE_URL } from './cli';
import type { Approval } from './ProcurementAgent';

const USAGE = 'usage: approve.ts <runId> [--reject] [--by <approver>]';

async function main(): Promise<number> {
  const command = parseCommandLine(process.argv.slice(2));
  if (typeof command === 'string') {
    console.error(`approve: ${command}\n${USAGE}`);
    return 2;
  }
  const { runId, approval } = command;
  const runtime = await Waymark.create({ database: DATABASE_URL });
  try {
    await runtime.signal(runId, 'approval', approval);
  } catch (error) {
    if (!isRunNotFoundError(error) && !isRunFinishedError(error)) throw error;
    console.error(`approve: ${error.message}`);
    return 1;
  } finally {
    await runtime.close();
  }
  const verb = approval.approved ? 'approved' : 'rejected';
  console.log(`${verb} run ${runId} as ${approval.by}; the next worker poll resumes it`);
  return 0;
}

/** The run id and the answer, or what is wrong with the arguments. */
function parseCommandLine(args: string[]): { runId: string; approval: Approval } | string {
  try {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: { reject: { type: 'boolean', default: false }, by: { type: 'string' } },
    });
    if (positionals.length !== 1) return `expected one run id, got ${positionals.length}`;
    const by = values.by ?? userInfo().username;
    return { runId: positionals[0], approval: { approved: !values.reject, by } };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
