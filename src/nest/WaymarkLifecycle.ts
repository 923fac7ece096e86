import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { WAYMARK_MODULE_SETTINGS, type ModuleSettings } from './readModuleOptions';

/**
 * Ties the runtime to the Nest application's lifecycle: the worker starts once every
 * provider exists (`onApplicationBootstrap`), and the runtime closes — stop claiming, let
 * steps finish within the grace period, hand the remaining runs over — in
 * `beforeApplicationShutdown`, before `onApplicationShutdown` hooks such as
 * `@nestjs/typeorm`'s destroy a shared DataSource.
 */
@Injectable()
export class WaymarkLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(WaymarkRuntime) private readonly runtime: WaymarkRuntime,
    @Inject(WAYMARK_MODULE_SETTINGS) private readonly settings: ModuleSettings,
  ) {}

  /** Starts the worker, unless the options say `worker: false`. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.settings.worker === false) return;
    try {
      this.runtime.startWorker(this.settings.worker);
    } catch (error) {
      // The application will not start: do not leave the database connection open.
      await this.runtime.close({ grace: 0 });
      throw error;
    }
  }

  /** `runtime.close({ grace })`: runs still executing afterwards are handed to other workers. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.runtime.close({ grace: this.settings.shutdownGraceMs });
  }
}
