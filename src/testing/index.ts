import { installMatchers } from './matchers';

export * from './createTestRuntime';
export * from './CrashPlan';
export * from './crashMatrix';
export * from './EffectLedger';
export * from './ExecutionLog';
export * from './FakeClock';
export { TestRuntime } from './TestRuntime';
export { waymarkMatchers, installMatchers } from './matchers';
export { SimulatedCrash, isSimulatedCrash } from '../errors/SimulatedCrash';

installMatchers();
