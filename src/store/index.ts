export { dataSourceOptionsFromUrl } from './connection/url/DatabaseUrl';
export { waymarkMigrations } from './migrations';
export { Migrator, type MigratorOptions } from './migrations/Migrator';
export type { ListRunsOptions, RunPage, RunSummary, StepRecord } from '../model/RunRecords';
export * from '../model/RunStatus';
export type { PendingSignal } from './SignalStore';
export { DEFAULT_VALUE_CHARS, type StoredValue } from '../model/StoredValue';
export {
  assertRunId,
  assertSignalName,
  MAX_RUN_ID_LENGTH,
  MAX_SIGNAL_NAME_LENGTH,
} from '../model/identifiers';
export {
  DEFAULT_HISTORY_PAGE,
  MAX_HISTORY_PAGE,
  type HistoryPageOptions,
} from '../model/HistoryPage';
