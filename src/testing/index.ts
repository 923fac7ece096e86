/**
 * `waymark/testing`: a test runtime on in-memory SQLite with a fake clock, crash hooks that
 * kill it like a dead process, a crash matrix, an effect ledger and jest matchers (registered
 * on import).
 *
 * @packageDocumentation
 */
// tsyringe throws at load without the metadata polyfill, and this entry point may be loaded first.
import 'reflect-metadata';
import { installMatchers } from './matchers';

export * from './createTestRuntime';
export * from './CrashPlan';
export * from './crashMatrix';
export * from './EffectLedger';
export * from './ExecutionLog';
export * from './FakeClock';
export { TestRuntime } from './TestRuntime';
export { waymarkMatchers, installMatchers, type MatcherResult } from './matchers';
export { SimulatedCrash, isSimulatedCrash } from '../errors/SimulatedCrash';

installMatchers();
