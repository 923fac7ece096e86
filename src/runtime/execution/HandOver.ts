import { RuntimeClosedError } from '../../errors/RuntimeClosedError';
import type { Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { RunClaims } from '../../store/RunClaims';
import type { RunState } from './RunState';
import { Stop } from './RunStop';

/**
 * While the runtime closes (a deploy), a run reaching a step boundary goes back to the
 * queue for another process to continue at once, instead of starting more work here.
 */
export class HandOver {
  constructor(
    private readonly queue: RunClaims,
    private readonly clock: Clock,
    private readonly lifecycle: Lifecycle,
  ) {}

  /** Releases `run` and stops it here if the runtime is closing; otherwise nothing. */
  async atBoundary(run: RunState): Promise<void> {
    if (!this.lifecycle.isClosing) return;
    await this.queue.release(run.runId, run.epoch, this.clock.now());
    const what = `continue run "${run.runId}" here (handed over to another process)`;
    throw run.stop(Stop.abort(new RuntimeClosedError(what)));
  }
}
