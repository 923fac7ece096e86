import { InvalidArgumentError } from 'commander';
import { isDuration, parseDuration, type Duration } from '../ground/Duration';
import { RUN_STATUSES, type RunStatus } from '../model/RunStatus';

/**
 * Commander argument parsers: each turns the text an operator typed into a value, or throws
 * `InvalidArgumentError`, which commander reports as a usage error (exit code 2).
 */

/** An integer from `min` to `max`. */
export function integerIn(min: number, max: number): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    }
    return value;
  };
}

/** A duration such as `500ms`, `1s` or `2m`. */
export function duration(text: string): Duration {
  if (!isDuration(text)) {
    throw new InvalidArgumentError("expected a duration such as '500ms', '1s', '2m' or '1h'");
  }
  return text;
}

/** Statuses given as `--status a,b` and/or repeated `--status a --status b`. */
export function collectStatuses(text: string, previous: RunStatus[] = []): RunStatus[] {
  const statuses = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const status of statuses) {
    if (!RUN_STATUSES.includes(status as RunStatus)) {
      throw new InvalidArgumentError(
        `unknown status "${status}"; expected one of ${RUN_STATUSES.join(', ')}`,
      );
    }
  }
  return [...previous, ...(statuses as RunStatus[])];
}

/**
 * A moment for `--since`: a duration back from now (`2h`, `30m`, `7d`) or an ISO 8601 date
 * (`2026-05-01`, `2026-05-01T12:00:00Z`).
 */
export function since(text: string, now: Date = new Date()): Date {
  if (isDuration(text)) return new Date(now.getTime() - parseDuration(text, 'since'));
  const time = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(time)) {
    throw new InvalidArgumentError(
      'expected a duration back from now (2h, 30m, 7d) or an ISO date (2026-05-01T12:00:00Z)',
    );
  }
  return new Date(time);
}
