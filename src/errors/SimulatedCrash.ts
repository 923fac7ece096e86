import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * Thrown by a test runtime that a crash hook killed: like a dead process, it writes
 * nothing more, and every call in flight on it rejects with this error.
 */
export class SimulatedCrash extends WaymarkError {
  declare readonly code: 'SIMULATED_CRASH';

  constructor(readonly at: string) {
    super('SIMULATED_CRASH', `simulated crash ${at}`);
  }
}

brand(SimulatedCrash, 'SimulatedCrash');

/** True when `error` is a {@link SimulatedCrash}. */
export function isSimulatedCrash(error: unknown): error is SimulatedCrash {
  return hasBrand(error, 'SimulatedCrash');
}
