import { formatDuration } from '../ground/Duration';

/** Shown for a value that is absent. */
export const NONE = '—';

/**
 * A moment as operators compare them across machines: UTC, to the second.
 *
 * @example
 * ```ts
 * formatTimestamp(new Date(0)); // '1970-01-01 00:00:00Z'
 * ```
 */
export function formatTimestamp(date: Date | null | undefined): string {
  if (!date) return NONE;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** How far `date` is from `now`, to hours past a day and minutes past an hour: `in 6d23h`. */
export function formatRelative(date: Date, now: Date): string {
  const ms = date.getTime() - now.getTime();
  const distance = Math.abs(ms);
  const unit = distance >= 86_400_000 ? 3_600_000 : distance >= 3_600_000 ? 60_000 : 1_000;
  const span = formatDuration(Math.round(distance / unit) * unit);
  return ms >= 0 ? `in ${span}` : `${span} ago`;
}

/** A step's duration, or {@link NONE} while it has none. */
export function formatElapsed(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? NONE : formatDuration(ms);
}
