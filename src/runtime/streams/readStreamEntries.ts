import type { Codec } from '../../codec/Codec';
import { RunNotFoundError } from '../../errors/RunNotFoundError';
import type { Lifecycle } from '../../ground/Lifecycle';
import { isTerminalStatus } from '../../model/RunStatus';
import type { StreamBatchRow, StreamStore } from '../../store/StreamStore';
import type { StreamEntry, StreamRestart } from './StreamEntry';
import type { StreamNotifier } from './StreamNotifier';

/** What a reader uses. */
export interface StreamReaderDeps {
  readonly store: StreamStore;
  readonly codec: Codec;
  readonly notifier: StreamNotifier;
  readonly lifecycle: Lifecycle;
  /** Whether the run executes in this process (then its writes notify; no polling). */
  readonly executingHere: (runId: string) => boolean;
  /** How often the store is read for a run executing in another process. */
  readonly pollMs: number;
}

const PAGE = 100;
/** A reader of a run executing here re-checks this rarely, in case the run moved away. */
const LOCAL_RECHECK_MS = 1_000;
/** A stream with nothing new for this long (a run waiting for a signal) is polled less often. */
const QUIET_AFTER_MS = 5_000;
const QUIET_POLL_MS = 250;

/**
 * The entries of a stream from offset `from`: the stored ones, then live ones, until the
 * stream is closed or the run ends. Offsets are consecutive: no duplicate, no gap.
 */
export async function* readStreamEntries<T>(
  deps: StreamReaderDeps,
  runId: string,
  name: string,
  from: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEntry<T>, void, undefined> {
  let next = from;
  let lastNewAt = Date.now();
  if ((await deps.store.runStatus(runId)) === undefined) throw new RunNotFoundError(runId);
  for (let ended = false; !signal?.aborted;) {
    deps.lifecycle.assertAlive(`read stream "${name}" of run "${runId}"`);
    const wait = deps.notifier.next(runId); // armed before reading: no notice is missed
    const batches = await deps.store.read(runId, name, next, PAGE);
    for (const batch of batches) {
      for (const entry of decodeBatch<T>(deps.codec, batch, name)) {
        if (entry.offset < next) continue;
        next = entry.offset + 1;
        lastNewAt = Date.now();
        yield entry;
      }
      if (batch.closed) return wait.cancel();
    }
    if (batches.length === PAGE) {
      wait.cancel();
      continue;
    }
    // The run's end is written after its last chunk: one more read after seeing it.
    if (ended) return wait.cancel();
    const status = await deps.store.runStatus(runId);
    // A parked run ends the reading too: it writes nothing until an operator acts.
    if (status === undefined || isTerminalStatus(status) || status === 'needs_attention') {
      ended = true;
      wait.cancel();
      continue;
    }
    const quiet = Date.now() - lastNewAt > QUIET_AFTER_MS;
    const pollMs = quiet ? Math.max(deps.pollMs, QUIET_POLL_MS) : deps.pollMs;
    await until(wait, deps.executingHere(runId) ? LOCAL_RECHECK_MS : pollMs, signal);
  }
}

function* decodeBatch<T>(
  codec: Codec,
  batch: StreamBatchRow,
  name: string,
): Generator<StreamEntry<T>> {
  let offset = batch.firstOffset;
  // Chunks are written in steps only; a close() from workflow code stores none.
  const seq = batch.stepSeq ?? -1;
  if (batch.restart !== null) {
    yield { offset: offset++, seq, restart: JSON.parse(batch.restart) as StreamRestart };
  }
  const chunks = codec.decode(batch.chunks, `stream "${name}" at offset ${offset}`) as T[];
  for (const chunk of chunks) yield { offset: offset++, seq, chunk };
}

/** Waits for the notice, `ms`, or the abort signal, whichever comes first. */
async function until(
  wait: { promise: Promise<void>; cancel: () => void },
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      wait.promise,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
        onAbort = resolve;
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    wait.cancel();
  }
}
