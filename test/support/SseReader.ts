/** One server-sent event as a reader sees it. */
export interface SseEvent {
  type: string;
  id?: string;
  data: unknown;
}

interface Waiter {
  match: (events: readonly SseEvent[]) => boolean;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Reads a server-sent event stream as it comes (unlike `readEvents`, which waits for the
 * end): the events so far, and a wait for the first moment they satisfy a predicate. The
 * connection ending (a killed server) fails the waits still open.
 */
export class SseReader {
  readonly events: SseEvent[] = [];
  private readonly abort = new AbortController();
  private readonly waiters = new Set<Waiter>();
  private ended: Error | undefined;
  readonly done: Promise<void>;

  constructor(url: string) {
    this.done = this.read(url).catch((error: unknown) => {
      this.end(error instanceof Error ? error : new Error(String(error)));
    });
  }

  /** Resolves once `match(events)` holds. */
  until(match: (events: readonly SseEvent[]) => boolean): Promise<void> {
    if (match(this.events)) return Promise.resolve();
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => this.waiters.add({ match, resolve, reject }));
  }

  close(): void {
    this.abort.abort();
  }

  private async read(url: string): Promise<void> {
    const response = await fetch(url, { signal: this.abort.signal });
    if (!response.ok || !response.body) throw new Error(`${url} answered ${response.status}`);
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const bytes of response.body) {
      buffered += decoder.decode(bytes as Uint8Array, { stream: true });
      const blocks = buffered.split('\n\n');
      buffered = blocks.pop() ?? '';
      for (const block of blocks) this.add(block);
    }
    this.end(new Error(`${url} ended`));
  }

  private add(block: string): void {
    const event: SseEvent = { type: 'message', data: undefined };
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event.type = line.slice(7);
      else if (line.startsWith('id: ')) event.id = line.slice(4);
      else if (line.startsWith('data: ')) event.data = JSON.parse(line.slice(6));
    }
    if (event.data === undefined) return;
    this.events.push(event);
    for (const waiter of this.waiters) {
      if (!waiter.match(this.events)) continue;
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }

  private end(error: Error): void {
    this.ended ??= error;
    for (const waiter of this.waiters) waiter.reject(this.ended);
    this.waiters.clear();
  }
}
