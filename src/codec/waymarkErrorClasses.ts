import { ConfigurationError } from '../errors/ConfigurationError';
import { CorruptValueError } from '../errors/CorruptValueError';
import { LeaseLostError } from '../errors/LeaseLostError';
import { NoRuntimeError } from '../errors/NoRuntimeError';
import { NonDeterminismError } from '../errors/NonDeterminismError';
import { NonRetryableError } from '../errors/NonRetryableError';
import { NotInRunError } from '../errors/NotInRunError';
import { RetryableError } from '../errors/RetryableError';
import { RunConflictError } from '../errors/RunConflictError';
import { RunNotFoundError } from '../errors/RunNotFoundError';
import { RuntimeClosedError } from '../errors/RuntimeClosedError';
import { SerializationError } from '../errors/SerializationError';
import { SimulatedCrash } from '../errors/SimulatedCrash';
import { StepTimeoutError } from '../errors/StepTimeoutError';
import { StoreUnavailableError } from '../errors/StoreUnavailableError';
import { AlreadyDecidedError } from '../errors/AlreadyDecidedError';
import { RunSuspended } from '../errors/RunSuspended';
import { WaymarkError } from '../errors/WaymarkError';
import { WorkflowNotRegisteredError } from '../errors/WorkflowNotRegisteredError';
import { InvalidRunStateError } from '../errors/InvalidRunStateError';
import { RetriesExhaustedError } from '../errors/RetriesExhaustedError';
import { RunCancelledError } from '../errors/RunCancelledError';
import { IdempotencyConflictError } from '../errors/IdempotencyConflictError';
import { UnknownOutcomeError } from '../errors/UnknownOutcomeError';
import { RunFinishedError } from '../errors/RunFinishedError';
import { SignalTimeoutError } from '../errors/SignalTimeoutError';
import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { MigrationLockTimeoutError } from '../errors/MigrationLockTimeoutError';
import { NoWritableHostError } from '../errors/NoWritableHostError';
import { StreamClosedError } from '../errors/StreamClosedError';
import { TransactionPoolerError } from '../errors/TransactionPoolerError';
import { registerErrorClasses } from './ErrorClassRegistry';

// waymark's own errors read back as their classes, so a replayed failure still matches
// `instanceof NonRetryableError` and friends.
registerErrorClasses(
  WaymarkError,
  ConfigurationError,
  CorruptValueError,
  LeaseLostError,
  NoRuntimeError,
  NonDeterminismError,
  NonRetryableError,
  NotInRunError,
  RetryableError,
  RunConflictError,
  RunNotFoundError,
  RuntimeClosedError,
  SerializationError,
  SimulatedCrash,
  StepTimeoutError,
  StoreUnavailableError,
  WorkflowNotRegisteredError,
  InvalidRunStateError,
  RetriesExhaustedError,
  RunCancelledError,
  IdempotencyConflictError,
  UnknownOutcomeError,
  RunFinishedError,
  SignalTimeoutError,
  InvalidArgumentError,
  MigrationLockTimeoutError,
  NoWritableHostError,
  StreamClosedError,
  TransactionPoolerError,
  AlreadyDecidedError,
  RunSuspended,
);
