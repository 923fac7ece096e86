import { ConfigurationError } from '../errors/ConfigurationError';
import type { ResolvedRetryPolicy } from '../policies/RetryPolicy';
import {
  qualifiedName,
  readMethodPolicies,
  type AnyClass,
  type MethodPolicies,
  type StepMetadata,
  type WorkflowMetadata,
} from './metadata';
import { validateClassPolicies } from './validateClassPolicies';

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
 * Everything the runtime needs to call one decorated method, resolved once from its
 * metadata (after its class's decorators were validated together) and reused on every call.
 */
export interface MethodPlan {
  readonly declaringClass: AnyClass;
  /** What the decorators recorded, as `MethodCall.policies` exposes it. */
  readonly policies: MethodPolicies;
  /** `Class.method`, the address of crash hooks, matchers and messages. */
  readonly target: string;
  readonly workflow: WorkflowMetadata | undefined;
  readonly step: StepMetadata | undefined;
  readonly retry: ResolvedRetryPolicy | undefined;
  readonly writer: WriterKind;
  /** The key of the call at `seq` of `runId` with `args`. */
  keyOf(runId: string, seq: number, args: readonly unknown[]): StepKey;
}

const MAX_GLOBAL_KEY_LENGTH = 255;
const plans = new WeakMap<AnyClass, Map<string, MethodPlan>>();

/** The plan of `Class.method` (declared on `Class` or a superclass), compiled on first use. */
export function planFor(Class: AnyClass, methodName: string): MethodPlan | undefined {
  let byMethod = plans.get(Class);
  if (!byMethod) plans.set(Class, (byMethod = new Map()));
  const cached = byMethod.get(methodName);
  if (cached) return cached;
  const policies = readMethodPolicies(Class, methodName);
  if (!policies) return undefined;
  const plan = compile(Class, policies);
  byMethod.set(methodName, plan);
  return plan;
}

function compile(Class: AnyClass, policies: MethodPolicies): MethodPlan {
  validateClassPolicies(Class);
  const { step, idempotent } = policies;
  const writer: WriterKind = step?.transactional
    ? 'transactional'
    : step?.atMostOnce
      ? 'atMostOnce'
      : idempotent?.scope === 'global'
        ? 'globalKey'
        : 'plain';
  const where = `@Idempotent on ${qualifiedName(policies)}`;
  const keyFn = idempotent?.key;
  const global = idempotent?.scope === 'global';
  return Object.freeze({
    declaringClass: Class,
    policies,
    target: qualifiedName(policies),
    workflow: policies.workflow,
    step,
    retry: policies.retry,
    writer,
    keyOf(runId: string, seq: number, args: readonly unknown[]): StepKey {
      if (!keyFn) return { key: `${runId}:${seq}`, global: false, custom: false };
      const key = checkedKey(keyFn(...args), global, where);
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
