import { WaymarkError } from './WaymarkError';

/** A workflow was called but no waymark runtime is open in this process. */
export class NoRuntimeError extends WaymarkError {
  constructor(workflow: string) {
    super(
      'NO_RUNTIME',
      `cannot start workflow "${workflow}": no waymark runtime is open; ` +
        `call await Waymark.create({ database }) first`,
    );
  }
}
