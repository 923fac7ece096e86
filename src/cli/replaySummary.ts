import type { ReplayReport } from '../runtime/ReplayReport';
import { plural } from './plural';
import { terminalSafe } from './terminalSafe';

/**
 * One line per replay for `waymark replay`: which run became which, whether the result
 * changed, the steps whose outcome differs, and the model calls replayed or made again.
 *
 * @example
 * ```ts
 * replaySummary(report);
 * // 'brief-1 → brief-1:replay-3f2a: result changed; 2 steps differ (#2 model:gpt, #3 publish); model calls: 1 replayed, 1 called'
 * ```
 */
export function replaySummary(report: ReplayReport): string {
  const { status, steps, modelCalls } = report;
  const outcome =
    status.before !== status.after
      ? `${status.before} → ${status.after}`
      : report.result.changed
        ? 'result changed'
        : 'result unchanged';
  const differ =
    steps.length === 0
      ? 'no step differs'
      : `${plural(steps.length, 'step')} ${steps.length === 1 ? 'differs' : 'differ'} (${steps.map((s) => `#${s.seq} ${terminalSafe(s.name)}`).join(', ')})`;
  const models = `model calls: ${modelCalls.replayed.length} replayed, ${modelCalls.called.length} called`;
  return `${terminalSafe(report.sourceRunId)} → ${terminalSafe(report.runId)}: ${outcome}; ${differ}; ${models}`;
}
