export { dataSourceOptionsFromUrl } from './DatabaseUrl';
export { waymarkMigrations } from './migrations';
export { Migrator, type MigratorOptions } from './Migrator';
export type { ListRunsOptions, RunPage, RunSummary, StepRecord } from './RunQueries';
export * from './RunStatus';
