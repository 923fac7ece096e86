import { ConfigurationError } from '../errors/ConfigurationError';
import { parseDuration } from '../ground/Duration';
import type { RuntimeOptions } from '../runtime/RuntimeOptions';
import type { WorkerOptions } from '../runtime/Worker';
import type { WaymarkModuleOptions } from './WaymarkModuleOptions';

/** @internal Nest injection token of the module's {@link ModuleSettings}. */
export const WAYMARK_MODULE_SETTINGS = Symbol.for('waymark:nest:ModuleSettings');

/** {@link WaymarkModuleOptions} split into what the runtime, the worker and shutdown take. */
export interface ModuleSettings {
  /** For `Waymark.create()`, without `resolveInstance` (the module supplies Nest's). */
  readonly runtime: Omit<RuntimeOptions, 'resolveInstance'>;
  readonly worker: WorkerOptions | false;
  readonly shutdownGraceMs: number;
}

/**
 * Checks the module's own options and splits them; the runtime checks the rest. Called when
 * the runtime provider is built, so a wrong option stops the application at startup.
 */
export function readModuleOptions(options: WaymarkModuleOptions): ModuleSettings {
  if (!options || typeof options !== 'object') {
    throw new ConfigurationError(
      'WaymarkModule needs options, e.g. ' +
        "WaymarkModule.forRoot({ database: 'sqlite:./waymark.db' })",
    );
  }
  const { worker = {}, shutdownGrace = '10s', ...rest } = options;
  if (worker !== false && (typeof worker !== 'object' || worker === null)) {
    throw new ConfigurationError(
      'WaymarkModule: worker must be false or worker options ({ concurrency, pollInterval }), ' +
        `got ${String(worker)}`,
    );
  }
  const runtime: RuntimeOptions = { ...rest };
  // A resolver passed anyway (plain JavaScript) would bypass Nest's injection.
  delete runtime.resolveInstance;
  // Read by the module when it lists its providers; not a runtime option.
  delete (runtime as { exceptionFilter?: boolean }).exceptionFilter;
  return {
    runtime,
    worker,
    shutdownGraceMs: parseDuration(shutdownGrace, 'WaymarkModule: shutdownGrace'),
  };
}
