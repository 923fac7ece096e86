import { isLeaseLostError } from '../../errors/LeaseLostError';
import { isRuntimeClosedError } from '../../errors/RuntimeClosedError';
import { isSimulatedCrash } from '../../errors/SimulatedCrash';
import { isStoreUnavailableError } from '../../errors/StoreUnavailableError';
import { isTransactionPoolerError } from '../../errors/TransactionPoolerError';
import { isMissingModule } from './missingModule';
import { isRunSuspended } from '../../errors/RunSuspended';

/**
 * Errors that stop this process's work on a run without being the run's outcome: nothing
 * is recorded for them, and the run stays resumable by this or another process. A module
 * that cannot be found (see {@link isMissingModule}) is one: the environment failed, not the
 * step.
 */
export function isProcessAbort(error: unknown): boolean {
  return (
    isSimulatedCrash(error) ||
    isLeaseLostError(error) ||
    isRuntimeClosedError(error) ||
    isStoreUnavailableError(error) ||
    isTransactionPoolerError(error) ||
    isRunSuspended(error) ||
    isMissingModule(error)
  );
}
