import type { Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { container as rootContainer } from 'tsyringe';
import { Waymark } from '../runtime/Waymark';
import { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { WorkflowContext } from '../runtime/WorkflowContext';
import { nestInstanceResolver } from './nestInstanceResolver';
import {
  readModuleOptions,
  WAYMARK_MODULE_SETTINGS,
  type ModuleSettings,
} from './readModuleOptions';
import { WAYMARK_MODULE_OPTIONS, type WaymarkModuleOptions } from './WaymarkModuleOptions';

/**
 * @internal The providers of `WaymarkModule` besides the options provider: the settings,
 * the runtime (whose workflow instances come from Nest's `ModuleRef`) and `WorkflowContext`.
 */
export const waymarkProviders: Provider[] = [
  {
    provide: WAYMARK_MODULE_SETTINGS,
    inject: [WAYMARK_MODULE_OPTIONS],
    useFactory: (options: WaymarkModuleOptions) => readModuleOptions(options),
  },
  {
    provide: WaymarkRuntime,
    inject: [WAYMARK_MODULE_SETTINGS, ModuleRef],
    useFactory: (settings: ModuleSettings, moduleRef: ModuleRef): Promise<WaymarkRuntime> => {
      const container = settings.runtime.container ?? rootContainer;
      return Waymark.create({
        ...settings.runtime,
        resolveInstance: nestInstanceResolver(moduleRef, (Class) => container.resolve(Class)),
      });
    },
  },
  {
    // Stateless (it reads the current run from AsyncLocalStorage): the runtime's one instance.
    provide: WorkflowContext,
    inject: [WaymarkRuntime],
    useFactory: (runtime: WaymarkRuntime) => runtime.container.resolve(WorkflowContext),
  },
];
