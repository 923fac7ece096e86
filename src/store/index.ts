export { dataSourceOptionsFromUrl } from './DatabaseUrl';
export { waymarkMigrations } from './migrations';
export { Migrator } from './Migrator';
export type { ListRunsOptions, RunPage, RunSummary, StepRecord } from './RunQueries';
export * from './RunStatus';
