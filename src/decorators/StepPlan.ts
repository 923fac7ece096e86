import { ConfigurationError } from '../errors/ConfigurationError';
import { applyArgs } from '../model/ArgsFunction';
import type { ResolvedRetryPolicy } from '../policies/RetryPolicy';
import type { IdempotentMetadata, StepMetadata } from './metadata';

/** Which checkpoint write a step's outcome takes (exactly one per step). */
export type WriterKind = 'plain' | 'transactional' | 'atMostOnce' | 'globalKey';

/** A step call's idempotency key, and whether it is unique across runs. */
export interface StepKey {
  readonly key: string;
  readonly global: boolean;
  /** Whether `@Idempotent({ key })` gave it (stored with the step) or it is the default `runId:seq`. */
  readonly custom: boolean;
}

/**
 * Everything the step path needs to run one kind of step — a `@Step` method, or an inline
 * step (`ctx.step`) — compiled once from its options: no field is optional, nothing is read
 * from metadata again on a call.
 */
export interface StepPlan {
  readonly kind: 'step';
  /** The name recorded in the history and checked on replay. */
  readonly name: string;
  /** `Class.method` for a method, the step's name for an inline step: what hooks address. */
  readonly target: string;
  readonly origin: 'method' | 'inline';
  readonly timeoutMs: number | undefined;
  /** The named limiter (`runtime.limiter`) every attempt passes through. */
  readonly limiter: string | undefined;
  readonly onUnknown: 'throw' | 'intervene';
  readonly retry: ResolvedRetryPolicy | undefined;
  readonly writer: WriterKind;
  /** The key of the call at `seq` of `runId` with `args`. */
  keyOf(runId: string, seq: number, args: readonly unknown[]): StepKey;
}

const MAX_GLOBAL_KEY_LENGTH = 255;

/** A step's plan from what its options say (validated already). */
export function compileStepPlan(
  target: string,
  origin: StepPlan['origin'],
  step: StepMetadata,
  retry: ResolvedRetryPolicy | undefined,
  idempotent: IdempotentMetadata | undefined,
): StepPlan {
  const writer: WriterKind = step.transactional
    ? 'transactional'
    : step.atMostOnce
      ? 'atMostOnce'
      : idempotent?.scope === 'global'
        ? 'globalKey'
        : 'plain';
  const where = origin === 'method' ? `@Idempotent on ${target}` : `ctx.step("${target}"): key`;
  const keyFn = idempotent?.key;
  const global = idempotent?.scope === 'global';
  return Object.freeze({
    kind: 'step',
    name: step.name,
    target,
    origin,
    timeoutMs: step.timeoutMs,
    limiter: step.limiter,
    onUnknown: step.onUnknown,
    retry,
    writer,
    keyOf(runId: string, seq: number, args: readonly unknown[]): StepKey {
      if (!keyFn) return { key: `${runId}:${seq}`, global: false, custom: false };
      const key = checkedKey(applyArgs(keyFn, args), global, where);
      return { key: global ? key : `${runId}:${key}`, global, custom: true };
    },
  });
}

function checkedKey(key: unknown, global: boolean, where: string): string {
  if (typeof key !== 'string' || key.length === 0) {
    throw new ConfigurationError(
      `${where}: key() returned ${typeof key === 'string' ? 'an empty string' : typeof key}; it must return a non-empty string`,
    );
  }
  if (global && key.length > MAX_GLOBAL_KEY_LENGTH) {
    throw new ConfigurationError(
      `${where}: a global key is at most ${MAX_GLOBAL_KEY_LENGTH} characters, got ${key.length}`,
    );
  }
  return key;
}
