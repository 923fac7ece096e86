import { createHash } from 'node:crypto';

/**
 * A hash of what a model call is made from — the prompt, tools and settings the SDK passes
 * `doGenerate`/`doStream`, keys sorted — stored with the call's result, so that a replay
 * answers a call from its recording only when the call's input is the same (a cache keyed on
 * the step alone would answer a changed prompt with the old reply).
 */
export function modelInputHash(params: object): string {
  const input: Record<string, unknown> = { ...params };
  delete input.abortSignal;
  return createHash('sha256').update(stableJson(input)).digest('hex');
}

/** JSON with every object's keys in order, so equal inputs hash equally. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || ArrayBuffer.isView(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/** True if `recorded` (a stored model call) was made from the input hashed as `hash`. */
export function recordedFrom(recorded: unknown, hash: string): boolean {
  return (
    typeof recorded === 'object' &&
    recorded !== null &&
    (recorded as { inputHash?: unknown }).inputHash === hash
  );
}
