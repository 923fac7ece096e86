import type { Clock } from '../../ground/Clock';
import type { Logger } from '../../ground/Logger';
import type { RunRow } from '../../store/rows';

/**
 * Says, once per claim, that a run a caller wants is held by a live holder elsewhere and
 * when it will be taken over if that holder stops renewing: "kill it and run it again"
 * across hosts waits for the lease, and a silent wait reads as a hang.
 */
export class HeldRunNotices {
  private readonly told = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  heldElsewhere(row: RunRow): void {
    const key = `${row.id}\u0000${row.claimToken ?? row.epoch}`;
    if (this.told.has(key)) return;
    if (this.told.size > 1000) this.told.clear();
    this.told.add(key);
    const renewedAgo = Math.max(0, Math.round((this.clock.now() - row.updatedAt) / 1000));
    const at =
      row.leaseExpiresAt === null ? 'once it lapses' : new Date(row.leaseExpiresAt).toISOString();
    this.logger.warn(
      `run "${row.id}" is held by worker ${row.owner ?? '(unknown)'} (renewed ${renewedAgo}s ago); ` +
        `waiting for it, and taking over at ${at} if its lease lapses`,
    );
  }
}
