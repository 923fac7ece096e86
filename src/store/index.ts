export { dataSourceOptionsFromUrl } from './DatabaseUrl';
export { waymarkMigrations } from './migrations';
export { Migrator, type MigratorOptions } from './Migrator';
export type { ListRunsOptions, RunPage, RunSummary, StepRecord } from './RunQueries';
export * from './RunStatus';
export type { PendingSignal } from './SignalStore';
export { DEFAULT_VALUE_CHARS, type StoredValue } from './StoredValue';
export {
  assertRunId,
  assertSignalName,
  MAX_RUN_ID_LENGTH,
  MAX_SIGNAL_NAME_LENGTH,
} from './identifiers';
export { DEFAULT_HISTORY_PAGE, MAX_HISTORY_PAGE, type HistoryPageOptions } from './HistoryPages';
