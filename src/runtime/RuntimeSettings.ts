import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { ConfigurationError } from '../errors/ConfigurationError';
import { realClock, SystemClock, type Clock } from '../ground/Clock';
import { parseDuration } from '../ground/Duration';
import { quietConsoleLogger, type Logger } from '../ground/Logger';
import type { GroupCommitBounds } from '../store/GroupCommit';
import type { RuntimeOptions } from './RuntimeOptions';
import { StreamTokens } from './streams/StreamTokens';

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
  readonly reportAbandonedRuns: boolean;
  /** Null when each checkpoint commits alone. */
  readonly groupCommit: GroupCommitBounds | null;
  /** Signs and checks `runtime.streamToken()`s with `streamTokenSecret` (or a random one). */
  readonly streamTokens: StreamTokens;
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
    reportAbandonedRuns: options.reportAbandonedRuns ?? true,
    groupCommit: groupCommitBounds(options.groupCommit),
    // Real time: the token is checked by other processes, on their clocks.
    streamTokens: StreamTokens.of(options.streamTokenSecret, realClock),
  };
}

const GROUP_COMMIT_DEFAULTS: GroupCommitBounds = { maxRows: 500, maxBytes: 4 * 1024 * 1024 };

/** The bounds `Waymark.create({ groupCommit })` asks for; a bad one names itself. */
function groupCommitBounds(option: RuntimeOptions['groupCommit']): GroupCommitBounds | null {
  if (option === false) return null;
  if (option === undefined || option === true) return GROUP_COMMIT_DEFAULTS;
  if (typeof option !== 'object' || option === null) {
    throw new ConfigurationError(
      `Waymark.create(): groupCommit must be true, false or { maxRows, maxBytes }, got ${String(option)}`,
    );
  }
  const bound = (name: 'maxRows' | 'maxBytes', fallback: number, least: number): number => {
    const value = option[name] ?? fallback;
    if (!Number.isInteger(value) || value < least) {
      throw new ConfigurationError(
        `Waymark.create(): groupCommit.${name} must be an integer ≥ ${least}, got ${String(value)}`,
      );
    }
    return value;
  };
  return {
    maxRows: bound('maxRows', GROUP_COMMIT_DEFAULTS.maxRows, 1),
    maxBytes: bound('maxBytes', GROUP_COMMIT_DEFAULTS.maxBytes, 1024),
  };
}
