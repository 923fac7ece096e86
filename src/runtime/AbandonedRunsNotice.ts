import type { Logger } from '../ground/Logger';

/** How long the notice waits for this runtime to resume the runs itself (a call, a worker). */
export const ABANDONED_RUNS_NOTICE_DELAY_MS = 5_000;

/** What the notice uses: where it goes, how long it waits, and the process's one print. */
export interface AbandonedRunsNoticeDeps {
  readonly logger: Logger;
  readonly delayMs: number;
  /** True for the first notice of this process, false after: it is printed at most once. */
  readonly claimPrint: () => boolean;
}

/**
 * Says, once, that stopped processes on this host left runs `running` — unless this runtime
 * resumes them itself first: the notice waits a few seconds (or until close), a run resumed
 * here meanwhile is dropped from it, and a worker or `recover()` cancels it.
 *
 * @example
 * ```ts
 * const notice = new AbandonedRunsNotice({ logger, delayMs: 5_000, claimPrint: claimProcessNotice });
 * notice.defer(['order-1', 'order-2']);
 * notice.resumed('order-1'); // after 5 s: "1 run(s) were left running … ("order-2") …"
 * ```
 */
export class AbandonedRunsNotice {
  private readonly runIds = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: AbandonedRunsNoticeDeps) {}

  /** Holds `runIds` for the notice, printed when the delay has passed or on {@link flush}. */
  defer(runIds: readonly string[]): void {
    for (const runId of runIds) this.runIds.add(runId);
    if (this.runIds.size === 0 || this.timer) return;
    this.timer = setTimeout(() => this.flush(), this.deps.delayMs);
    // A process that has nothing else to do exits without waiting for a notice.
    this.timer.unref();
  }

  /** This runtime resumed `runId`: the user needs no word about it. */
  resumed(runId: string): void {
    this.runIds.delete(runId);
    if (this.runIds.size === 0) this.cancel();
  }

  /** This runtime resumes them all (a worker, `recover()`), or died: nothing to say. */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.runIds.clear();
  }

  /** Prints the notice now for the runs still not resumed here, if this process has not yet. */
  flush(): void {
    const runIds = [...this.runIds];
    this.cancel();
    if (runIds.length === 0 || !this.deps.claimPrint()) return;
    this.deps.logger.warn(abandonedRunsMessage(runIds));
  }
}

/** The notice's text: how many, the first three ids, and how to resume them. */
function abandonedRunsMessage(runIds: readonly string[]): string {
  const ids = runIds
    .slice(0, 3)
    .map((id) => `"${id}"`)
    .join(', ');
  const more = runIds.length > 3 ? ` and ${runIds.length - 3} more` : '';
  return (
    `${runIds.length} run(s) were left running by processes on this host that stopped (${ids}${more}); ` +
    'calling a workflow with an id resumes its run at once; runtime.startWorker() or runtime.recover() resumes them all'
  );
}

/** Set on `process` (shared by every copy of waymark loaded in it) once the notice is printed. */
const PRINTED = Symbol.for('waymark.abandonedRunsNotice.printed');

/** The process-wide gate of the notice: true the first time only. */
export function claimProcessNotice(): boolean {
  const holder = process as unknown as Record<symbol, boolean | undefined>;
  if (holder[PRINTED]) return false;
  holder[PRINTED] = true;
  return true;
}
