import { Module, type DynamicModule } from '@nestjs/common';
import { WaymarkModule } from 'waymark/nest';
import { ERP, FakeErp, FakeLlm, LLM } from './fakes';
import { ProcurementService } from './ProcurementService';
import { PurchasesController } from './PurchasesController';

/**
 * The application: waymark (a worker polling every 50 ms, so an approval is acted on at
 * once), the procurement service, its HTTP controller, and the fakes under their tokens.
 * Replace the fakes with real clients under the same tokens.
 *
 * @example
 * ```ts
 * const app = await NestFactory.create(AppModule.forRoot({ database: 'sqlite:./procurement.db' }));
 * ```
 */
@Module({})
export class AppModule {
  /** The application storing its runs in `database` (a URL, DataSourceOptions or DataSource). */
  static forRoot(options: { database: string }): DynamicModule {
    return {
      module: AppModule,
      imports: [
        WaymarkModule.forRoot({ database: options.database, worker: { pollInterval: '50ms' } }),
      ],
      controllers: [PurchasesController],
      providers: [
        ProcurementService,
        { provide: LLM, useClass: FakeLlm },
        { provide: ERP, useClass: FakeErp },
      ],
    };
  }
}
