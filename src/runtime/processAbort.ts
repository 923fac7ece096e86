import { LeaseLostError } from '../errors/LeaseLostError';
import { RuntimeClosedError } from '../errors/RuntimeClosedError';
import { SimulatedCrash } from '../errors/SimulatedCrash';
import { StoreUnavailableError } from '../errors/StoreUnavailableError';
import { RunSuspended } from './RunSuspended';

/**
 * Errors that stop this process's work on a run without being the run's outcome: nothing
 * is recorded for them, and the run stays resumable by this or another process.
 */
export function isProcessAbort(error: unknown): boolean {
  return (
    error instanceof SimulatedCrash ||
    error instanceof LeaseLostError ||
    error instanceof RuntimeClosedError ||
    error instanceof StoreUnavailableError ||
    error instanceof RunSuspended
  );
}
