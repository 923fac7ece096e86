import { ConfigurationError } from '../errors/ConfigurationError';
import type { MethodCall } from './WorkflowCall';

const MAX_GLOBAL_KEY_LENGTH = 255;

/**
 * The idempotency key of one step call: `${runId}:${seq}` by default; with `@Idempotent`,
 * the user's key, prefixed by the run id unless the scope is global.
 */
export function idempotencyKeyFor(
  runId: string,
  seq: number,
  call: MethodCall,
): { key: string; global: boolean } {
  const policy = call.policies.idempotent;
  if (!policy?.key) return { key: `${runId}:${seq}`, global: false };
  const key: unknown = policy.key(...call.args);
  const where = `@Idempotent on ${call.policies.className}.${call.policies.methodName}`;
  if (typeof key !== 'string' || key.length === 0) {
    throw new ConfigurationError(
      `${where}: key() returned ${typeof key === 'string' ? 'an empty string' : typeof key}; it must return a non-empty string`,
    );
  }
  if (policy.scope === 'global' && key.length > MAX_GLOBAL_KEY_LENGTH) {
    throw new ConfigurationError(
      `${where}: a global key is at most ${MAX_GLOBAL_KEY_LENGTH} characters, got ${key.length}`,
    );
  }
  return policy.scope === 'global'
    ? { key, global: true }
    : { key: `${runId}:${key}`, global: false };
}
