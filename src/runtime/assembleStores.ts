import type { DataSource } from 'typeorm';
import type { Codec } from '../codec/Codec';
import type { Lifecycle } from '../ground/Lifecycle';
import type { Logger } from '../ground/Logger';
import { assertToolCallAwaited } from '../model/toolApprovalSignals';
import { Database } from '../store/connection/Database';
import { guardPostgresPool } from '../store/connection/guardPostgresPool';
import type { GroupCommitBounds } from '../store/GroupCommit';
import { Stores } from '../store/Stores';
import type { RuntimeEvents } from './execution/RuntimeEvents';

/** Every repository a runtime uses, each made once on its one database handle. */
export type RuntimeStores = Stores;

/** What the stores are opened on. */
export interface StoreSettings {
  readonly dataSource: DataSource;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  readonly codec: Codec;
  readonly storeRetryMs: number;
  /** Who this runtime is on a lock (its lease process). */
  readonly holder: string;
  /** The bounds of one group commit of checkpoints; null: each commits alone. */
  readonly groupCommit: GroupCommitBounds | null;
  /** Told of each retry through a database outage (`store.retrying`). */
  readonly events: RuntimeEvents;
}

/** The first floor of a runtime: its database handle and the repositories on it. */
export function assembleStores(s: StoreSettings): RuntimeStores {
  guardPostgresPool(s.dataSource, s.logger);
  const database = new Database(s.dataSource, s.lifecycle, {
    timeoutMs: s.storeRetryMs,
    onRetry: (operation, error, delayMs, attempt) =>
      s.events.emit('store.retrying', { operation, attempt, delayMs, error }),
  });
  return new Stores(database, {
    lifecycle: s.lifecycle,
    holder: s.holder,
    decode: (text, path) => s.codec.decode(text, path),
    // Signals that answer a tool approval must name an awaited call: checked wherever one is sent.
    admitSignal: assertToolCallAwaited,
    groupCommit: s.groupCommit,
  });
}
