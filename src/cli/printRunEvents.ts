import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { terminalSafe } from './terminalSafe';
import type { Disposable } from '../ground/Disposable';
import { firstLine, messageOf } from './describeFailure';
import { formatTimestamp } from './formatTime';
import type { Output } from './Output';
import { plural } from './plural';

/**
 * Prints one line per run event of `runtime` — started, resumed, waiting, completed, failed,
 * needs_attention — until the returned disposable is disposed.
 *
 * @example
 * ```ts
 * printRunEvents(runtime, output);
 * // 2026-05-01T12:00:03.120Z run.completed po-1234 procurement
 * ```
 */
export function printRunEvents(runtime: WaymarkRuntime, output: Output): Disposable {
  const paint = output.paint;
  const print = (event: string, runId: string, workflow: string, detail = ''): void => {
    const at = paint.dim(new Date().toISOString());
    const text = `${terminalSafe(runId)} ${terminalSafe(workflow)}${detail ? ` ${terminalSafe(detail)}` : ''}`;
    output.line(`${at} ${event} ${text}`);
  };
  const reason = (error: unknown): string => firstLine(messageOf(error));
  const subscriptions = [
    runtime.on('run.started', (e) => print('run.started', e.runId, e.workflow)),
    runtime.on('run.resumed', (e) =>
      print('run.resumed', e.runId, e.workflow, `(${plural(e.recordedSteps, 'recorded step')})`),
    ),
    runtime.on('run.waiting', (e) =>
      print(
        paint.cyan('run.waiting'),
        e.runId,
        e.workflow,
        e.wakeAt === null ? 'until signalled' : `until ${formatTimestamp(new Date(e.wakeAt))}`,
      ),
    ),
    runtime.on('run.completed', (e) => print(paint.green('run.completed'), e.runId, e.workflow)),
    runtime.on('run.failed', (e) =>
      print(paint.red('run.failed'), e.runId, e.workflow, reason(e.error)),
    ),
    runtime.on('run.needs_attention', (e) =>
      print(paint.yellow('run.needs_attention'), e.runId, e.workflow, reason(e.error)),
    ),
  ];
  return { dispose: () => subscriptions.forEach((s) => s.dispose()) };
}
