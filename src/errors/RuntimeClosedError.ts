import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** The runtime was closed (or, in tests, crashed) and accepts no more work. */
export class RuntimeClosedError extends WaymarkError {
  declare readonly code: 'RUNTIME_CLOSED';

  constructor(what: string) {
    super('RUNTIME_CLOSED', `the waymark runtime is closed: cannot ${what}`);
  }
}

brand(RuntimeClosedError, 'RuntimeClosedError');

/** True when `error` is a {@link RuntimeClosedError}. */
export function isRuntimeClosedError(error: unknown): error is RuntimeClosedError {
  return hasBrand(error, 'RuntimeClosedError');
}
