import { Global, Module, type DynamicModule, type Provider } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { WorkflowContext } from '../runtime/WorkflowContext';
import { WaymarkExceptionFilter } from './WaymarkExceptionFilter';
import { WaymarkLifecycle } from './WaymarkLifecycle';
import {
  WAYMARK_MODULE_OPTIONS,
  type WaymarkModuleAsyncOptions,
  type WaymarkModuleOptions,
} from './WaymarkModuleOptions';
import { waymarkProviders } from './waymarkProviders';

/**
 * Waymark in a NestJS application. Global: import it once, in the root module, and inject
 * `WaymarkRuntime` and `WorkflowContext` anywhere. Workflow classes are ordinary Nest
 * providers (`@Injectable()`, listed in a module's `providers`); a run started here or
 * resumed by the worker executes on the instance Nest built, with the dependencies Nest
 * injected. The worker starts with the application and the runtime closes with it.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [WaymarkModule.forRoot({ database: 'sqlite:./waymark.db' })],
 *   controllers: [PurchasesController],
 *   providers: [ProcurementService],
 * })
 * export class AppModule {}
 * ```
 */
@Global()
@Module({})
export class WaymarkModule {
  /**
   * The module with fixed options.
   *
   * @example
   * ```ts
   * WaymarkModule.forRoot({ database: process.env.DATABASE_URL!, worker: { concurrency: 20 } });
   * ```
   */
  static forRoot(options: WaymarkModuleOptions): DynamicModule {
    return WaymarkModule.with(
      { provide: WAYMARK_MODULE_OPTIONS, useValue: options },
      options?.exceptionFilter !== false,
    );
  }

  /**
   * The module with options built by a factory Nest injects, e.g. to share the application's
   * TypeORM `DataSource`, so transactional steps commit with the application's rows.
   *
   * @example
   * ```ts
   * WaymarkModule.forRootAsync({
   *   inject: [getDataSourceToken()], // from @nestjs/typeorm
   *   useFactory: (dataSource: DataSource) => ({ database: dataSource }),
   * });
   * ```
   */
  static forRootAsync(options: WaymarkModuleAsyncOptions): DynamicModule {
    return {
      ...WaymarkModule.with(
        {
          provide: WAYMARK_MODULE_OPTIONS,
          useFactory: options.useFactory,
          inject: options.inject ?? [],
        },
        options.exceptionFilter !== false,
      ),
      imports: options.imports ?? [],
    };
  }

  private static with(options: Provider, exceptionFilter: boolean): DynamicModule {
    const filter: Provider[] = exceptionFilter
      ? [{ provide: APP_FILTER, useClass: WaymarkExceptionFilter }]
      : [];
    return {
      module: WaymarkModule,
      global: true,
      providers: [options, ...waymarkProviders, WaymarkLifecycle, ...filter],
      exports: [WaymarkRuntime, WorkflowContext],
    };
  }
}
