import type { StepRow } from '../../../store/rows';

/**
 * The row with the step's own idempotency key (`@Idempotent({ key })`), stored so operators
 * see the key a provider saw; the default `runId:seq` is not stored (it is derived).
 */
export function withKey(row: StepRow, storedKey: string | null): StepRow {
  return storedKey === null ? row : { ...row, idempotencyKey: storedKey };
}
