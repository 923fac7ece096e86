import { isDeepStrictEqual } from 'node:util';

/** What one run looked like: its result (or error), its step history, its effects. */
export interface CrashObservation {
  readonly outcome: { ok: true; value: unknown } | { ok: false; error: string };
  readonly steps: ReadonlyArray<{ seq: number; name: string; status: string }>;
  readonly effects: Record<string, number>;
}

/** How `observed` differs from the uninterrupted `reference`, one sentence per difference. */
export function compareCrashObservations(
  reference: CrashObservation,
  observed: CrashObservation,
): string[] {
  const differences: string[] = [];
  if (!isDeepStrictEqual(reference.outcome, observed.outcome)) {
    differences.push(
      `result ${JSON.stringify(observed.outcome)} instead of ${JSON.stringify(reference.outcome)}`,
    );
  }
  if (!isDeepStrictEqual(reference.steps, observed.steps)) {
    differences.push(
      `steps ${describeSteps(observed.steps)} instead of ${describeSteps(reference.steps)}`,
    );
  }
  for (const key of new Set([
    ...Object.keys(reference.effects),
    ...Object.keys(observed.effects),
  ])) {
    if ((reference.effects[key] ?? 0) !== (observed.effects[key] ?? 0)) {
      differences.push(
        `effect "${key}" ${observed.effects[key] ?? 0}× instead of ${reference.effects[key] ?? 0}×`,
      );
    }
  }
  return differences;
}

function describeSteps(steps: CrashObservation['steps']): string {
  return `[${steps.map((s) => `${s.seq}:${s.name}:${s.status}`).join(', ')}]`;
}
