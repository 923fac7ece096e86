/**
 * The `code` of every error waymark throws, one per class, so a `switch (error.code)` over a
 * {@link WaymarkError} can be checked for exhaustiveness. Codes are stable: one is only ever
 * added (a new error class), never renamed.
 *
 * @example
 * ```ts
 * function status(e: WaymarkError): number {
 *   switch (e.code) {
 *     case 'RUN_NOT_FOUND': return 404;
 *     case 'INVALID_ARGUMENT': case 'CONFIGURATION': return 400;
 *     default: return 500;
 *   }
 * }
 * ```
 */
export type WaymarkErrorCode =
  /** A second decision for a request already decided (`approve:<toolCallId>`). */
  | 'ALREADY_DECIDED'
  | 'CONFIGURATION'
  | 'CORRUPT_VALUE'
  | 'IDEMPOTENCY_CONFLICT'
  | 'INVALID_ARGUMENT'
  | 'INVALID_RUN_STATE'
  | 'LEASE_LOST'
  | 'MIGRATION_LOCK_TIMEOUT'
  | 'NO_RUNTIME'
  | 'NO_WRITABLE_HOST'
  | 'NON_DETERMINISM'
  | 'NON_RETRYABLE'
  | 'NOT_IN_RUN'
  | 'RETRIES_EXHAUSTED'
  | 'RETRYABLE'
  | 'RUN_CANCELLED'
  | 'RUN_CONFLICT'
  | 'RUN_FINISHED'
  | 'RUN_NOT_FOUND'
  /** A workflow unwinding to wait (a timer, a signal, a long backoff); rethrow it if caught. */
  | 'RUN_SUSPENDED'
  | 'RUNTIME_CLOSED'
  | 'SERIALIZATION'
  | 'SIGNAL_TIMEOUT'
  | 'SIMULATED_CRASH'
  | 'STEP_TIMEOUT'
  | 'STORE_UNAVAILABLE'
  | 'STREAM_CLOSED'
  /** `ToolApprovalDeniedError` of `waymark/ai`. */
  | 'TOOL_APPROVAL_DENIED'
  | 'TRANSACTION_POOLER'
  | 'UNKNOWN_OUTCOME'
  | 'WORKFLOW_NOT_REGISTERED';
