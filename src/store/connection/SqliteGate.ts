/**
 * Orders statements on SQLite's one connection: while a transaction holds it (or waits for
 * it), every other statement queues behind; `holders` counts those holding or waiting.
 */
export class SqliteGate {
  private value: Promise<void> = Promise.resolve();
  private count = 0;

  /** How many pieces of work hold the connection or wait for it now. */
  get holders(): number {
    return this.count;
  }

  /** Runs `work` once everything queued before it has ended; nothing else runs meanwhile. */
  async serialized<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.value;
    let release!: () => void;
    this.value = new Promise<void>((resolve) => (release = resolve));
    this.count++;
    try {
      await previous;
      return await work();
    } finally {
      this.count--;
      release();
    }
  }
}
