import { isReadBackError } from '../../codec/ErrorDecoding';
import { isModuleNotFound } from '../../errors/moduleNotFound';
import { storedOutcomeOf } from '../../errors/storedOutcomeNote';

/** How far down an error's `cause` chain a missing module is looked for. */
const CAUSE_DEPTH = 5;

/**
 * A module that could not be found, thrown in this process just now — by a step body, a model
 * call or workflow code, itself or as the cause of what was thrown (an adapter's
 * `ConfigurationError` naming the package to install). That is the environment's failure, not
 * the step's: a package not installed, a file missing from the deployment. It is never
 * recorded as a step's or a run's outcome, so the run resumes once the module is there. An
 * error read back from the store (a replayed step, a run's stored outcome) is an outcome
 * already, whatever it says.
 */
export function isMissingModule(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth <= CAUSE_DEPTH; depth++) {
    if (typeof current !== 'object' || current === null) return false;
    if (isReadBackError(current) || storedOutcomeOf(current)) return false;
    if (isModuleNotFound(current)) return true;
    current = causeOf(current);
  }
  return false;
}

function causeOf(error: object): unknown {
  try {
    return (error as { cause?: unknown }).cause;
  } catch {
    return undefined;
  }
}
