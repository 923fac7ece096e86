import { setMaxListeners } from 'node:events';
import { RuntimeClosedError } from '../errors/RuntimeClosedError';

type State = 'open' | 'closing' | 'closed' | 'dead';

/**
 * Whether a runtime may still act. A killed runtime behaves like a dead process: every
 * later write throws the cause and every run in flight is rejected with it at once.
 */
export class Lifecycle {
  private state: State = 'open';
  private cause: Error = new RuntimeClosedError('act');
  private readonly onDeath = new Set<(cause: Error) => void>();
  private readonly stopping = new AbortController();
  private readonly closedCallbacks: Array<() => void> = [];

  constructor() {
    // Every wait of the runtime listens here while it lasts and removes its listener after:
    // a hundred callers awaiting runs at once are a hundred listeners, not a leak.
    setMaxListeners(0, this.stopping.signal);
  }

  /** Aborted when the runtime starts closing or dies: sleepers wake and give up. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Closing: finishing or handing over what runs here, accepting nothing new. */
  get isClosing(): boolean {
    return this.state === 'closing';
  }

  get isDead(): boolean {
    return this.state === 'dead';
  }

  /** Whether the runtime may still write on behalf of its runs ({@link assertAlive} passes). */
  get isAlive(): boolean {
    return this.state === 'open' || this.state === 'closing';
  }

  /**
   * Throws unless the runtime may still write on behalf of its runs. With `name`, what was
   * refused reads `<what> "<name>"`, written only then (this is on every step's path).
   */
  assertAlive(what: string, name?: string): void {
    if (this.state === 'dead') throw this.cause;
    if (this.state === 'closed') {
      throw new RuntimeClosedError(name === undefined ? what : `${what} "${name}"`);
    }
  }

  /** Throws unless the runtime accepts new work. */
  assertOpen(what: string): void {
    this.assertAlive(what);
    if (this.state !== 'open') throw new RuntimeClosedError(what);
  }

  /** Runs `reject` if the runtime dies before the returned function is called. */
  watchDeath(reject: (cause: Error) => void): () => void {
    this.onDeath.add(reject);
    return () => void this.onDeath.delete(reject);
  }

  kill(cause: Error): void {
    if (this.state === 'dead') return;
    this.state = 'dead';
    this.cause = cause;
    this.stopping.abort(cause);
    for (const reject of this.onDeath) reject(cause);
    this.onDeath.clear();
  }

  beginClosing(): void {
    if (this.state !== 'open') return;
    this.state = 'closing';
    this.stopping.abort(new RuntimeClosedError('wait any longer'));
  }

  /** Runs `cleanup` once the runtime has closed. */
  onClosed(cleanup: () => void): void {
    this.closedCallbacks.push(cleanup);
  }

  markClosed(): void {
    for (const cleanup of this.closedCallbacks.splice(0)) cleanup();
    if (this.state !== 'dead') this.state = 'closed';
  }
}
