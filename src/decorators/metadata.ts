import 'reflect-metadata';
import type { ArgsFunction } from '../model/ArgsFunction';
import type { Constructor } from '../model/Constructor';
import type { ResolvedRetryPolicy } from '../policies/RetryPolicy';

/**
 * The one place waymark's decorators write to and the runtime reads from. Decorators store
 * a frozen record per method under {@link METHOD_POLICIES}; readers below are typed.
 */
export const METHOD_POLICIES = Symbol.for('waymark:method-policies');

/** A class whose methods carry waymark decorators. */
export type AnyClass = Constructor;

/** What `@Workflow` recorded for a method. */
export interface WorkflowMetadata {
  readonly name: string;
  readonly version: string | undefined;
  readonly id: ArgsFunction<string> | undefined;
  /** The named queue its runs wait in (`runtime.queue`). */
  readonly queue?: string;
  /** Durable time limit of each run, from its start; past it the run is cancelled. */
  readonly timeoutMs?: number;
  /** How long ended runs are kept; workers delete older ones. */
  readonly retentionMs?: number;
}

/** What `@Step` recorded for a method. */
export interface StepMetadata {
  readonly name: string;
  readonly timeoutMs: number | undefined;
  readonly atMostOnce: boolean;
  readonly onUnknown: 'throw' | 'intervene';
  readonly transactional: boolean;
  /** The named limiter each attempt passes through (`runtime.limiter`). */
  readonly limiter?: string;
}

/** What `@Idempotent` recorded for a method. */
export interface IdempotentMetadata {
  readonly key: ArgsFunction<string> | undefined;
  readonly scope: 'run' | 'global';
}

/** Every policy recorded for one method, keyed by the decorator that recorded it. */
export interface MethodPolicies {
  readonly className: string;
  readonly methodName: string;
  /** The method body as written, before the decorator routed calls to the interceptor. */
  readonly original: (...args: unknown[]) => unknown;
  readonly workflow?: WorkflowMetadata;
  readonly step?: StepMetadata;
  readonly retry?: ResolvedRetryPolicy;
  readonly idempotent?: IdempotentMetadata;
  /** Records of decorators added in later issues (`retry`, `idempotent`), by key. */
  readonly [policy: string]: unknown;
}

type PolicyTable = Map<string, MethodPolicies>;

const decoratedClasses = new Set<AnyClass>();

function ownTable(target: AnyClass): PolicyTable {
  let table = Reflect.getOwnMetadata(METHOD_POLICIES, target) as PolicyTable | undefined;
  if (!table) {
    table = new Map();
    Reflect.defineMetadata(METHOD_POLICIES, table, target);
    decoratedClasses.add(target);
  }
  return table;
}

/** Records one policy for `Class.method`, keeping what other decorators recorded. */
export function recordPolicy(
  target: AnyClass,
  methodName: string,
  original: (...args: unknown[]) => unknown,
  policy: string,
  value: object,
): void {
  const table = ownTable(target);
  const existing = table.get(methodName);
  table.set(
    methodName,
    Object.freeze({
      className: target.name,
      methodName,
      original: existing?.original ?? original,
      ...existing,
      [policy]: Object.freeze(value),
    }),
  );
}

/** The policies recorded for `Class.method`, looking up the class hierarchy. */
export function readMethodPolicies(
  target: AnyClass,
  methodName: string,
): MethodPolicies | undefined {
  for (let cls: AnyClass | null = target; cls && cls !== Function.prototype;) {
    const table = Reflect.getOwnMetadata(METHOD_POLICIES, cls) as PolicyTable | undefined;
    const found = table?.get(methodName);
    if (found) return found;
    cls = Object.getPrototypeOf(cls) as AnyClass | null;
  }
  return undefined;
}

/** Every decorated method declared directly on `target`. */
export function readClassPolicies(target: AnyClass): readonly MethodPolicies[] {
  const table = Reflect.getOwnMetadata(METHOD_POLICIES, target) as PolicyTable | undefined;
  return table ? [...table.values()] : [];
}

/** Every class that has at least one decorated method, in the order they were defined. */
export function readDecoratedClasses(): readonly AnyClass[] {
  return [...decoratedClasses];
}

/** `Class.method`, the address used in messages, crash hooks and matchers. */
export function qualifiedName(policies: Pick<MethodPolicies, 'className' | 'methodName'>): string {
  return `${policies.className}.${policies.methodName}`;
}
