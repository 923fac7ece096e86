import './dispatch';

export * from './RunHandle';
export * from './RuntimeEvents';
export * from './RuntimeOptions';
export * from './execution/StepHooks';
export * from './StepInterceptor';
export * from './Waymark';
export {
  WaymarkRuntime,
  type StartOptions,
  type AsyncMethodOf,
  type QueueOption,
  type QueueStats,
  type LimiterStats,
  type QueuedRunView,
} from './WaymarkRuntime';
export * from './WorkflowContext';
export * from './Worker';
export type { RunScope, StepFrame } from './execution/RunScope';
export type { MethodCall } from './execution/MethodCall';
export type { StreamWriter } from './streams/StreamWriter';
export type {
  StreamEntry,
  StreamEntries,
  StreamRestart,
  ReadStreamOptions,
} from './streams/StreamEntry';
export { MAX_STREAM_NAME_LENGTH } from './streams/Streams';
export type { StreamSummary } from '../store/StreamStore';
