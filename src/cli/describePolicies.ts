import type { ErrorMatcher } from '../policies/ErrorClassifier';
import { formatDuration } from '../ground/Duration';
import type { ResolvedRetryPolicy } from '../policies/RetryPolicy';
import type { MethodPolicies } from '../runtime/WorkflowCatalog';
import { NONE } from './formatTime';

/**
 * One-cell summaries of what the decorators of a step recorded, for `waymark check`.
 *
 * @example
 * ```ts
 * describeRetry(policies.retry); // '5 attempts, 1s×2 ≤1m full jitter, then park'
 * ```
 */
export function describeRetry(retry: ResolvedRetryPolicy | undefined): string {
  if (!retry) return 'none (1 attempt)';
  const { backoff } = retry;
  const delays =
    backoff.factor === 1 && backoff.jitter === 'none' && backoff.initialMs === backoff.maxMs
      ? `fixed ${formatDuration(backoff.initialMs)}`
      : `${formatDuration(backoff.initialMs)}×${backoff.factor} ≤${formatDuration(backoff.maxMs)} ` +
        `${backoff.jitter} jitter`;
  const parts = [`${retry.maxAttempts} attempts`, delays];
  if (retry.retryOn) parts.push(`retryOn ${matcherNames(retry.retryOn)}`);
  if (retry.abortOn) parts.push(`abortOn ${matcherNames(retry.abortOn)}`);
  if (retry.maxDelayMs !== undefined) parts.push(`cap ${formatDuration(retry.maxDelayMs)}`);
  if (!retry.respectRetryAfter) parts.push('ignores Retry-After');
  parts.push(retry.onExhausted === 'intervene' ? 'then park' : 'then fail');
  return parts.join(', ');
}

/** The idempotency key a step passes on: the default, or its `@Idempotent` key and scope. */
export function describeIdempotency(policies: MethodPolicies): string {
  const idempotent = policies.idempotent;
  if (!idempotent?.key) return 'runId:seq';
  return idempotent.scope === 'global' ? 'key(), global' : 'runId:key()';
}

/** At-most-once and transactional execution, or {@link NONE}. */
export function describeExecution(policies: MethodPolicies): string {
  const step = policies.step;
  if (!step) return NONE;
  const modes: string[] = [];
  if (step.atMostOnce) {
    modes.push(step.onUnknown === 'intervene' ? 'at most once, unknown → park' : 'at most once');
  }
  if (step.transactional) modes.push('transactional');
  return modes.length > 0 ? modes.join(', ') : NONE;
}

function matcherNames(matchers: readonly ErrorMatcher[]): string {
  // Error classes by name; inline predicates have none.
  return matchers.map((m) => m.name || 'predicate').join('|');
}
