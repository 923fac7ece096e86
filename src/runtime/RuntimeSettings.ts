import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { ConfigurationError } from '../errors/ConfigurationError';
import { SystemClock, type Clock } from '../ground/Clock';
import { parseDuration } from '../ground/Duration';
import { quietConsoleLogger, type Logger } from '../ground/Logger';
import type { RuntimeOptions } from './RuntimeOptions';

/** `Waymark.create()` options, checked and with their defaults. */
export interface RuntimeSettings {
  readonly maxValueBytes: number;
  readonly workerId: string;
  readonly leaseMs: number;
  readonly storeRetryMs: number;
  readonly idempotencyWaitMs: number;
  readonly durableDelayMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly migrate: boolean;
}

/** Checks `Waymark.create()` options; a bad one is a `ConfigurationError` naming it. */
export function resolveSettings(options: RuntimeOptions): RuntimeSettings {
  if (!options || typeof options !== 'object' || options.database === undefined) {
    throw new ConfigurationError(
      "Waymark.create() needs { database }, e.g. { database: 'sqlite:./waymark.db' }",
    );
  }
  const maxValueBytes = options.maxValueBytes ?? 1024 * 1024;
  if (!Number.isInteger(maxValueBytes) || maxValueBytes < 1024) {
    throw new ConfigurationError(
      `Waymark.create(): maxValueBytes must be an integer ≥ 1024, got ${String(maxValueBytes)}`,
    );
  }
  const workerId =
    options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  if (typeof workerId !== 'string' || workerId.length === 0 || workerId.length > 255) {
    throw new ConfigurationError(
      'Waymark.create(): workerId must be a non-empty string of at most 255 characters',
    );
  }
  return {
    maxValueBytes,
    workerId,
    leaseMs: parseDuration(options.leaseDuration ?? '30s', 'Waymark.create(): leaseDuration'),
    storeRetryMs: parseDuration(
      options.storeRetryTimeout ?? '30s',
      'Waymark.create(): storeRetryTimeout',
    ),
    idempotencyWaitMs: parseDuration(
      options.idempotencyWait ?? '30s',
      'Waymark.create(): idempotencyWait',
    ),
    durableDelayMs: parseDuration(
      options.durableDelayThreshold ?? '30s',
      'Waymark.create(): durableDelayThreshold',
    ),
    clock: options.clock ?? new SystemClock(),
    logger: options.logger ?? quietConsoleLogger,
    migrate: options.migrate ?? true,
  };
}
