import { InvalidArgumentError } from '../../errors/InvalidArgumentError';
import { applyArgs } from '../../model/ArgsFunction';
import type { ResolvedQueue } from '../../policies/FlowLimits';
import type { QueuePlace } from '../../store/QueueAdmission';
import type { FlowRegistry } from './FlowRegistry';
import type { WorkflowCall } from './WorkflowCall';
import type { StartCallOptions } from './StartCallOptions';

const MAX_KEY_LENGTH = 255;
const MAX_PRIORITY = 1_000_000_000;

/**
 * Where a start puts its run: undefined to execute it here; else its queue (a name given to
 * `start`, or the workflow's `@Workflow({ queue })`, or null for the default queue), the
 * partition key the queue derives from the arguments, its priority and dedupe key. Bad
 * input — an unknown queue, a priority or dedupe key that cannot apply — is refused here,
 * before anything is written.
 */
export function queuePlace(
  call: WorkflowCall,
  options: StartCallOptions,
  flows: FlowRegistry,
): QueuePlace | undefined {
  const workflow = call.plan;
  const named = typeof options.queue === 'string' ? options.queue : workflow.queue;
  const dedupe =
    options.dedupe === undefined ? undefined : checkedKey(options.dedupe, 'start(): dedupe');
  if (named === undefined) {
    if (options.priority !== undefined) {
      throw new InvalidArgumentError(
        'start(): priority',
        'applies to runs of a named queue (queue: "<name>")',
      );
    }
    if (!options.queue) {
      if (dedupe !== undefined) {
        throw new InvalidArgumentError(
          'start(): dedupe',
          'applies to queued runs (queue: true or a queue name)',
        );
      }
      return undefined;
    }
    return { queue: null, partitionKey: null, priority: 0, dedupe };
  }
  const where =
    typeof options.queue === 'string' ? 'start(): queue' : `@Workflow "${workflow.name}": queue`;
  const queue = flows.queue(named, where);
  const priority = options.priority ?? 0;
  if (!Number.isInteger(priority) || Math.abs(priority) > MAX_PRIORITY) {
    throw new InvalidArgumentError(
      'start(): priority',
      `must be an integer from -${MAX_PRIORITY} to ${MAX_PRIORITY}, got ${String(priority)}`,
    );
  }
  return { queue: queue.name, partitionKey: partitionKeyOf(queue, call.args), priority, dedupe };
}

/** The partition key `queue` derives from a run's arguments; null when it has none. */
export function partitionKeyOf(queue: ResolvedQueue, args: readonly unknown[]): string | null {
  if (!queue.partitionBy) return null;
  return checkedKey(applyArgs(queue.partitionBy, args), `queue("${queue.name}"): partitionBy()`);
}

/** A dedupe or partition key: a string of 1 to MAX_KEY_LENGTH characters. */
function checkedKey(key: unknown, what: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    const got =
      typeof key === 'string' ? `${key.length} characters` : key === null ? 'null' : typeof key;
    throw new InvalidArgumentError(
      what,
      `must be a string of 1 to ${MAX_KEY_LENGTH} characters, got ${got}`,
    );
  }
  return key;
}
