import type { Socket } from 'node:net';

type Item =
  | { readonly notBefore: number; readonly bytes: Buffer }
  | { readonly notBefore: number; readonly end: true };

/**
 * Writes to one socket in the order given, holding an item, and every item after it, until
 * its time has come: a delay never reorders bytes. When the socket cannot take more, the
 * socket feeding it is paused, as `pipe()` would.
 */
export class OrderedPipe {
  private readonly queue: Item[] = [];
  private timer: NodeJS.Timeout | undefined;
  private draining = false;
  /** Closed, or its end queued: later pushes are dropped. */
  private finished = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
  ) {}

  /** Forwards `bytes` once everything before them has gone and `holdMs` have passed. */
  push(bytes: Buffer, holdMs: number): void {
    if (this.finished || bytes.length === 0) return;
    this.queue.push({ notBefore: performance.now() + holdMs, bytes });
    this.pump();
  }

  /** Ends the socket, gracefully, once everything before has been written. */
  pushEnd(): void {
    if (this.finished) return;
    this.finished = true;
    this.queue.push({ notBefore: performance.now(), end: true });
    this.pump();
  }

  /** Drops whatever is still queued, stops the timer, and takes nothing more. */
  close(): void {
    this.finished = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
  }

  private pump(): void {
    if (this.timer) return;
    for (let head = this.queue[0]; head; head = this.queue[0]) {
      // Timers may fire a fraction of a millisecond early; wait again rather than forward early.
      const wait = Math.ceil(head.notBefore - performance.now());
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
        return;
      }
      this.queue.shift();
      if (this.to.destroyed) continue;
      if ('end' in head) {
        this.to.end(() => this.to.destroy());
      } else if (!this.to.write(head.bytes)) {
        this.throttle();
      }
    }
  }

  private throttle(): void {
    if (this.draining) return;
    this.draining = true;
    this.from.pause();
    this.to.once('drain', () => {
      this.draining = false;
      this.from.resume();
    });
  }
}
