import type { AiCall } from '../../model/AiCall';
import type { Disposable } from '../../ground/Disposable';
import type { Logger } from '../../ground/Logger';

/** The events a runtime emits, with their payloads. */
export interface WaymarkEvents {
  'run.started': { runId: string; workflow: string };
  'run.resumed': { runId: string; workflow: string; recordedSteps: number };
  'run.completed': { runId: string; workflow: string };
  'run.failed': { runId: string; workflow: string; error: unknown };
  'run.needs_attention': { runId: string; workflow: string; error: unknown };
  'run.cancelled': { runId: string; reason: string | undefined };
  /**
   * A worker claimed a run that was queued (`pending`) or due (`waiting` whose time came);
   * `waitedMs` is how long it was ready before a worker took it (the queue's wait).
   */
  'run.claimed': {
    runId: string;
    workflow: string;
    queue: string | null;
    from: 'pending' | 'waiting';
    waitedMs: number;
  };
  /** A worker took over a run whose lease lapsed: its holder died, stalled or lost the database. */
  'run.taken_over': { runId: string; workflow: string; queue: string | null };
  /** Released until `wakeAt` (a long backoff, a timer, a signal): no process holds it. */
  'run.waiting': { runId: string; workflow: string; wakeAt: number | null };
  'step.started': { runId: string; seq: number; step: string };
  /** One attempt of a step's body begins (the first, or a retry). */
  'step.attempt': { runId: string; seq: number; step: string; attempt: number };
  'step.completed': { runId: string; seq: number; step: string; durationMs: number };
  'step.failed': { runId: string; seq: number; step: string; durationMs: number; error: unknown };
  /** An attempt failed with a transient error; the next one is due after `delayMs`. */
  'step.retrying': {
    runId: string;
    seq: number;
    step: string;
    attempt: number;
    delayMs: number;
    error: unknown;
  };
  /** A step whose outcome was already stored: its body did not run. */
  'step.replayed': { runId: string; seq: number; step: string; status: 'completed' | 'failed' };
  /**
   * A stream's readers in this process first saw a stored batch of `chunks` entries, `lagMs`
   * after it was written (the writer's clock against this process's: 0 when behind).
   */
  'stream.seen': { runId: string; stream: string; chunks: number; lagMs: number };
  /** A step under `limiter` got HTTP 429 with a Retry-After: every step under it waits until `until`. */
  'limiter.paused': { limiter: string; until: number; runId: string; step: string };
  /** A schedule's tick was started as run `runId` (by this process; exactly one per tick). */
  'schedule.fired': { schedule: string; runId: string; tick: number };
  /**
   * A database operation failed with a transient error (a lost connection, a lock, a server
   * starting) and is tried again after `delayMs`; `attempt` counts the tries so far.
   */
  'store.retrying': { operation: string; attempt: number; delayMs: number; error: unknown };
  /**
   * A model or tool call `waymark/ai` made in the body of step `seq` (attempt `attempt`), told
   * once it returned or threw; never for a step replayed from the history.
   */
  'ai.call': { runId: string; seq: number; step: string; attempt: number; call: AiCall };
}

/** Name of a {@link WaymarkEvents} event. */
export type WaymarkEventName = keyof WaymarkEvents;

type Listener<K extends WaymarkEventName> = (event: WaymarkEvents[K]) => void;

/** A listener to every event, with its name. */
export type AnyListener = <K extends WaymarkEventName>(event: K, payload: WaymarkEvents[K]) => void;

/**
 * Writes every event to `logger` as one structured line (`info`; failures at `warn`), with
 * errors reduced to name and message.
 */
export function logEvents(events: RuntimeEvents, logger: Logger): Disposable {
  return events.onAny((event, payload) => {
    const fields: Record<string, unknown> = { event, ...payload };
    if ('error' in payload) {
      const error = payload.error as { name?: unknown; message?: unknown } | undefined;
      fields.error = { name: error?.name, message: error?.message };
    }
    const failed =
      event === 'run.failed' || event === 'step.failed' || event === 'run.needs_attention';
    if (failed) logger.warn(`waymark ${event}`, fields);
    else logger.info(`waymark ${event}`, fields);
  });
}

/**
 * A small typed emitter. A throwing listener is logged, never allowed to break a run.
 */
export class RuntimeEvents {
  /** Each event's listeners, under its name; read through {@link listenersOf}. */
  private readonly listeners = new Map<WaymarkEventName, Set<Listener<never>>>();
  private readonly anyListeners = new Set<AnyListener>();

  constructor(private readonly logger: Logger) {}

  /** Calls `listener` for each `event` until the returned disposable is disposed. */
  on<K extends WaymarkEventName>(event: K, listener: Listener<K>): Disposable {
    let set = this.listenersOf(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return { dispose: () => void set.delete(listener) };
  }

  /** Calls `listener` for every event until the returned disposable is disposed. */
  onAny(listener: AnyListener): Disposable {
    this.anyListeners.add(listener);
    return { dispose: () => void this.anyListeners.delete(listener) };
  }

  emit<K extends WaymarkEventName>(event: K, payload: WaymarkEvents[K]): void {
    for (const listener of this.anyListeners) {
      try {
        listener(event, payload);
      } catch (error) {
        this.logger.error(`listener for ${event} threw`, { error });
      }
    }
    const set = this.listenersOf(event);
    if (!set) return;
    for (const listener of set) {
      try {
        listener(payload);
      } catch (error) {
        this.logger.error(`listener for ${event} threw`, { error });
      }
    }
  }

  private listenersOf<K extends WaymarkEventName>(event: K): Set<Listener<K>> | undefined {
    // `on` files each listener under its own event, so the set under `event` is of `Listener<K>`.
    return this.listeners.get(event) as Set<Listener<K>> | undefined;
  }
}
