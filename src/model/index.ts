export type { AiCall, AiCallTiming, AiChatCall, AiToolCall } from './AiCall';
export type { Constructor } from './Constructor';
export type { ErrorClass } from './ErrorClass';
export { DEFAULT_HISTORY_PAGE, MAX_HISTORY_PAGE, type HistoryPageOptions } from './HistoryPage';
export {
  assertRunId,
  assertSignalName,
  MAX_RUN_ID_LENGTH,
  MAX_SIGNAL_KEY_LENGTH,
  MAX_SIGNAL_NAME_LENGTH,
} from './identifiers';
export type {
  ListRunsOptions,
  RunPage,
  RunSummary,
  StepRecord,
  StoredOutcome,
  WholeValueOf,
} from './RunRecords';
export { MAX_ERROR_NAME_CHARS, type ErrorSummary } from './ErrorSummary';
export { isTerminalStatus, RUN_STATUSES, type RunStatus, type TerminalStatus } from './RunStatus';
export type { StepHookPoint, StepHooks } from './StepHooks';
export type { StepInfo } from './StepInfo';
export type { IsStorable, StorableResult } from './Storable';
export { DEFAULT_VALUE_CHARS, type StoredValue } from './StoredValue';
export type { StreamSummary } from './StreamSummary';
