import { InvalidArgumentError } from '../../errors/InvalidArgumentError';
import { parseDuration, type Duration } from '../../ground/Duration';

/** When a new run is due, must end, and must have started by (epoch ms; absent: no limit). */
export interface RunTiming {
  /** Not before this time: the run waits for a worker until then (`start(…, { at })`). */
  readonly wakeAt?: number;
  /** Cancelled, with its child runs, if it has not ended by then. */
  readonly deadlineAt?: number;
  /** Cancelled if no worker has started it by then. */
  readonly startBy?: number;
}

/**
 * A point in time: a `Date`, or a {@link Duration} from now (`start()`'s `at`, `deadline`) or
 * before now (`prune()`'s `olderThan`).
 */
export type DateOrDuration = Date | Duration;

/** The time `value` names, in epoch ms; a bad value throws naming `where`. */
export function timeOf(value: DateOrDuration | undefined, now: number, where: string) {
  if (value === undefined) return undefined;
  if (value instanceof Date) {
    const ms = value.getTime();
    if (Number.isNaN(ms)) throw new InvalidArgumentError(where, 'is an invalid Date');
    return ms;
  }
  return now + parseDuration(value, where);
}

/** The deadline a new run gets: the earlier of the one asked for and its workflow's timeout. */
export function deadlineOf(
  asked: number | undefined,
  timeoutMs: number | undefined,
  startsAt: number,
): number | null {
  const fromTimeout = timeoutMs === undefined ? undefined : startsAt + timeoutMs;
  if (asked === undefined) return fromTimeout ?? null;
  return fromTimeout === undefined ? asked : Math.min(asked, fromTimeout);
}
