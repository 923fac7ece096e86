import type { AnyClass } from './metadata';
import { ConfigurationError } from '../errors/ConfigurationError';
import { readClassPolicies, type MethodPolicies } from './metadata';

const valid = new WeakSet<AnyClass>();
const DECORATOR_NAMES: Record<string, string> = { retry: '@Retry', idempotent: '@Idempotent' };

/**
 * Checks the rules that span decorators of one method, which no single decorator can
 * check when it runs (decorators apply bottom-up, in either order). Called when a class
 * is registered with a runtime, and by `waymark check`.
 */
export function validateClassPolicies(target: AnyClass): void {
  if (valid.has(target)) return;
  const problems: string[] = [];
  for (const policies of readClassPolicies(target)) {
    problems.push(...combinationProblems(policies));
    for (const key of Object.keys(policies)) {
      if (!(key in DECORATOR_NAMES) || policies.step) continue;
      const decorator = DECORATOR_NAMES[key];
      problems.push(
        `${decorator} on ${policies.className}.${policies.methodName} needs @Step on the same method` +
          (policies.workflow ? ' (it is a @Workflow; put the policy on the steps it calls)' : ''),
      );
    }
  }
  if (problems.length > 0) throw new ConfigurationError(problems.join('; '));
  valid.add(target);
}

/** Options that contradict each other on one step. */
function combinationProblems(policies: MethodPolicies): string[] {
  const where = `${policies.className}.${policies.methodName}`;
  const problems: string[] = [];
  if (policies.step?.transactional && policies.step.atMostOnce) {
    problems.push(
      `@Step on ${where}: transactional and atMostOnce exclude each other (a transactional step is exactly-once already)`,
    );
  }
  if (policies.step?.transactional && policies.idempotent?.scope === 'global') {
    problems.push(
      `@Idempotent on ${where}: a transactional step cannot have a global key (its writes commit with its checkpoint already)`,
    );
  }
  if (policies.idempotent?.scope === 'global' && !policies.idempotent.key) {
    problems.push(
      `@Idempotent on ${where}: scope 'global' needs a key function, e.g. key: (order) => order.id`,
    );
  }
  return problems;
}
