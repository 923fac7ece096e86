import type { Command } from 'commander';
import type { LimiterStats, QueueStats } from '../../runtime/FlowControls';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { formatTable, type Cell, type Painted } from '../formatTable';
import { formatTimestamp, NONE } from '../formatTime';
import { withRuntime } from '../openRuntime';

interface QueuesOptions {
  json?: boolean;
}

/** What `waymark queues --json` prints. */
export interface QueuesReport {
  queues: QueueStats[];
  limiters: LimiterStats[];
}

/**
 * `waymark queues`: each queue's depth (runs waiting to start), runs waiting on a timer or
 * signal, runs executing and which ones, with the limits its workers recorded; and each
 * limiter's held slots and stored pause. The default queue is shown as `(default)`.
 *
 * @example
 * ```sh
 * waymark queues
 * waymark queues --json
 * ```
 */
export function registerQueuesCommand(program: Command, cli: CliContext): void {
  program
    .command('queues')
    .description('show each queue: depth, what is running, limits; and each limiter')
    .option('--json', 'print one JSON object { queues, limiters } for scripts')
    .action(async (options: QueuesOptions, command: Command) => {
      const url = databaseUrlOf(command, cli.env);
      const report = await withRuntime(url, cli.output, async (runtime) => ({
        queues: await runtime.queueStats(),
        limiters: await runtime.limiterStats(),
      }));
      if (options.json) {
        cli.output.json(report);
        return;
      }
      printReport(cli, report);
    });
}

function printReport(cli: CliContext, report: QueuesReport): void {
  const { output } = cli;
  const bold = (text: string): Painted => ({ text, paint: output.paint.bold });
  const queueRows = report.queues.map((q): Cell[] => [
    q.name === '' ? '(default)' : q.name,
    String(q.pending),
    String(q.waiting),
    String(q.running),
    describeLimits(q.limits),
  ]);
  if (queueRows.length === 0) output.line('no queued or running runs');
  else {
    const headers = ['QUEUE', 'PENDING', 'WAITING', 'RUNNING', 'LIMITS'].map(bold);
    for (const line of formatTable(headers, queueRows)) output.line(line);
  }
  const executing = report.queues.flatMap((q) =>
    q.executing.map((run): Cell[] => [
      q.name === '' ? '(default)' : q.name,
      run.runId,
      run.workflow,
      run.partitionKey ?? NONE,
      run.owner ?? NONE,
    ]),
  );
  if (executing.length > 0) {
    output.line('');
    const headers = ['QUEUE', 'RUNNING RUN', 'WORKFLOW', 'KEY', 'WORKER'].map(bold);
    for (const line of formatTable(headers, executing)) output.line(line);
  }
  if (report.limiters.length > 0) {
    output.line('');
    const rows = report.limiters.map((l): Cell[] => [
      l.name,
      String(l.held),
      l.pausedUntil === null ? NONE : formatTimestamp(new Date(l.pausedUntil)),
    ]);
    for (const line of formatTable(['LIMITER', 'HELD', 'PAUSED UNTIL'].map(bold), rows)) {
      output.line(line);
    }
  }
}

function describeLimits(limits: Record<string, unknown> | null): string {
  if (!limits) return NONE;
  const parts: string[] = [];
  if (typeof limits.concurrency === 'number') parts.push(`concurrency ${limits.concurrency}`);
  if (typeof limits.workerConcurrency === 'number')
    parts.push(`per worker ${limits.workerConcurrency}`);
  const rate = limits.rateLimit as { limit?: number; periodMs?: number } | undefined;
  if (rate?.limit !== undefined) parts.push(`${rate.limit} per ${rate.periodMs ?? '?'}ms`);
  if (typeof limits.perKeyConcurrency === 'number')
    parts.push(`per key ${limits.perKeyConcurrency}`);
  else if (limits.partitioned === true) parts.push('partitioned');
  return parts.length > 0 ? parts.join(', ') : NONE;
}
