import './dispatch';

export * from './RunHandle';
export * from './execution/RuntimeEvents';
export * from './RuntimeOptions';
export * from '../model/StepHooks';
export * from './StepInterceptor';
export * from './Waymark';
export { WaymarkRuntime } from './WaymarkRuntime';
export type { ArgsOf, AsyncMethodOf, ResultOf } from './WorkflowMethod';
export type { SignalOptions, SignalReceipt } from './SignalOptions';
export type { StartOptions } from './StartOptions';
export type { ForkOptions, ResumeOptions } from './OperatorActions';
export type { Replay, ReplayOptions } from './Replays';
export type { ReplayReport, ReplayStepChange } from './ReplayReport';
export type { QueueStats, LimiterStats, QueuedRunView } from './FlowControls';
export type { ScheduleOptions, ScheduleInfo, CatchUp } from './Schedules';
export type { PruneOptions, PruneResult } from './Pruning';
export type { DateOrDuration } from './execution/RunTiming';
export * from './WorkflowContext';
export type { AllOptions } from './fanOut';
export * from './Worker';
export type { StepInfo } from '../model/StepInfo';
export type { StreamWriter } from './streams/StreamWriter';
export type {
  StreamEntry,
  StreamEntries,
  StreamRestart,
  ReadStreamOptions,
  StreamTokenOptions,
} from './streams/StreamEntry';
export { MAX_STREAM_NAME_LENGTH } from './streams/Streams';
export type { StreamSummary } from '../model/StreamSummary';
