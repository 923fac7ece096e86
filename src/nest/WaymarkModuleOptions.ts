import type { ModuleMetadata, FactoryProvider } from '@nestjs/common';
import type { Duration } from '../ground/Duration';
import type { RuntimeOptions } from '../runtime/RuntimeOptions';
import type { WorkerOptions } from '../runtime/Worker';

/**
 * Options of `WaymarkModule.forRoot()`: those of `Waymark.create()` (but `resolveInstance`,
 * which the module sets to Nest's `ModuleRef`), plus the worker and the shutdown grace.
 *
 * @example
 * ```ts
 * WaymarkModule.forRoot({
 *   database: process.env.DATABASE_URL ?? 'sqlite:./waymark.db',
 *   worker: { concurrency: 20, pollInterval: '500ms' },
 *   shutdownGrace: '10s',
 * });
 * ```
 */
export interface WaymarkModuleOptions extends Omit<RuntimeOptions, 'resolveInstance'> {
  /**
   * The worker started when the application has bootstrapped: it resumes runs that are due
   * (a signal came, a timer ran out) or abandoned by a dead process. Default: a worker with
   * the runtime's defaults (10 runs at once, polling every second). `false` for a process
   * that only starts and signals runs while workers run elsewhere.
   */
  worker?: WorkerOptions | false;
  /**
   * On application shutdown (`app.close()`, or SIGTERM with `app.enableShutdownHooks()`),
   * how long steps in flight may take to finish before their runs are handed over anyway.
   * Default `'10s'`.
   */
  shutdownGrace?: Duration;
  /**
   * Registers `WaymarkExceptionFilter` for the whole application, so waymark's errors
   * answer 404, 409, 400 or 503 instead of 500. Default `true`; `false` leaves every error to
   * the application's own filters (Nest answers those it does not know with 500).
   */
  exceptionFilter?: boolean;
}

/**
 * Options of `WaymarkModule.forRootAsync()`: a factory of {@link WaymarkModuleOptions} whose
 * arguments Nest injects, e.g. the application's TypeORM `DataSource`.
 *
 * @example
 * ```ts
 * WaymarkModule.forRootAsync({
 *   inject: [getDataSourceToken()], // from @nestjs/typeorm
 *   useFactory: (dataSource: DataSource) => ({ database: dataSource }),
 * });
 * ```
 */
export interface WaymarkModuleAsyncOptions {
  /** Modules that export the providers `inject` names. */
  imports?: ModuleMetadata['imports'];
  /** Builds the options; may be async. */
  useFactory: FactoryProvider<WaymarkModuleOptions>['useFactory'];
  /** The providers passed to `useFactory`, in order. */
  inject?: FactoryProvider['inject'];
  /** As {@link WaymarkModuleOptions.exceptionFilter}; here, since providers are fixed first. */
  exceptionFilter?: boolean;
}

/** Nest injection token of the module's resolved {@link WaymarkModuleOptions}. */
export const WAYMARK_MODULE_OPTIONS = Symbol.for('waymark:nest:ModuleOptions');
