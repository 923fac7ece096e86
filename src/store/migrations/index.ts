import type { MigrationInterface } from 'typeorm';
import { M0001CreateRunsAndSteps } from './M0001CreateRunsAndSteps';
import { M0002AddAttempts } from './M0002AddAttempts';
import { M0003AddIdempotencyKeys } from './M0003AddIdempotencyKeys';
import { M0004AddSignalsAndWaits } from './M0004AddSignalsAndWaits';
import { M0005AddForks } from './M0005AddForks';
import { M0006AddLeaseHolders } from './M0006AddLeaseHolders';
import { M0007AddKeysAndParkedReasons } from './M0007AddKeysAndParkedReasons';
import { M0008AddStreams } from './M0008AddStreams';
import { M0009AddQueuesAndLimiters } from './M0009AddQueuesAndLimiters';
import { M0010AddSchedulesAndDeadlines } from './M0010AddSchedulesAndDeadlines';
import { M0011FenceStepsByKey } from './M0011FenceStepsByKey';
import { M0012AddSignalKeys } from './M0012AddSignalKeys';

/**
 * waymark's schema migrations, oldest first. Applied by the runtime unless
 * `migrate: false`; an application that runs its own TypeORM migrations can list these
 * in its DataSource's `migrations` instead.
 */
export const waymarkMigrations: ReadonlyArray<new () => MigrationInterface> = [
  M0001CreateRunsAndSteps,
  M0002AddAttempts,
  M0003AddIdempotencyKeys,
  M0004AddSignalsAndWaits,
  M0005AddForks,
  M0006AddLeaseHolders,
  M0007AddKeysAndParkedReasons,
  M0008AddStreams,
  M0009AddQueuesAndLimiters,
  M0010AddSchedulesAndDeadlines,
  M0011FenceStepsByKey,
  M0012AddSignalKeys,
];
