import { LeaseLostError } from '../errors/LeaseLostError';
import { isDuplicateKey } from './connection/Dialect';
import type { RunStatus } from '../model/RunStatus';
import type { Database } from './connection/Database';
import type { StreamSummary } from '../model/StreamSummary';

/** One stored batch of a stream: the chunks at offsets `firstOffset` to `firstOffset + count - 1`. */
export interface StreamBatchRow {
  readonly runId: string;
  readonly stream: string;
  readonly firstOffset: number;
  readonly count: number;
  /** A JSON array of encoded chunks (the restart marker, when there is one, is not in it). */
  readonly chunks: string;
  /** A restart marker taking offset `firstOffset` (JSON `{ step, seq, attempt }`), or null. */
  readonly restart: string | null;
  /** The stream ends after this batch. */
  readonly closed: boolean;
  /** The step whose body wrote the batch; null for `close()` from workflow code. */
  readonly stepSeq: number | null;
  readonly createdAt: number;
}

/** Where a stream stands: its next offset, whether it is closed, which steps wrote to it. */
export interface StreamTail {
  readonly nextOffset: number;
  readonly closed: boolean;
  readonly stepSeqs: ReadonlySet<number>;
}

/** The most chunks one batch holds, so a read from an offset can use the key's order. */
export const MAX_BATCH_CHUNKS = 8192;

/** The most batches one {@link StreamStore.append} stores (SQLite allows 500 SELECTs in a UNION). */
export const MAX_APPEND_ROWS = 100;

const COLUMNS =
  'run_id, stream, first_offset, chunk_count, chunks, restart, closed, step_seq, created_at';
const PLAIN_VALUES = '?, ?, ?, ?, ?, ?, ?, ?, ?';
const TYPED_VALUES =
  '?::varchar, ?::varchar, ?::integer, ?::integer, ?::text, ?::text, ?::integer, ?::integer, ?::bigint';

/** The one place stream batches are read and written. */
export class StreamStore {
  constructor(private readonly db: Database) {}

  /**
   * Appends batches in one statement, fenced like a step's checkpoint: only while the run is
   * still at `epoch`, so a process whose claim was taken over stores nothing and gets
   * `LeaseLostError`. 'duplicate' when an offset was taken meanwhile — unless by this very
   * append, committed on a first try whose answer was lost: that is 'ok'. At most
   * {@link MAX_APPEND_ROWS} rows.
   */
  async append(rows: readonly StreamBatchRow[], epoch: number): Promise<'ok' | 'duplicate'> {
    const first = rows[0];
    const pg = this.db.dialect === 'postgres';
    const values = (r: StreamBatchRow): unknown[] => [
      r.runId,
      r.stream,
      r.firstOffset,
      r.count,
      r.chunks,
      r.restart,
      r.closed ? 1 : 0,
      r.stepSeq,
      r.createdAt,
    ];
    // The fence: the run row at `epoch`, share-locked against a concurrent claim (InnoDB
    // locks what an INSERT … SELECT reads by itself; PostgreSQL must be asked, not in a UNION).
    const fence = 'SELECT id FROM waymark_runs WHERE id = ? AND epoch = ?';
    const sql = pg
      ? `INSERT INTO waymark_stream_chunks (${COLUMNS}) SELECT v.* FROM (${fence} FOR SHARE) fence, ` +
        `(VALUES ${rows.map(() => `(${TYPED_VALUES})`).join(', ')}) AS v (${COLUMNS})`
      : `INSERT INTO waymark_stream_chunks (${COLUMNS}) ` +
        rows
          .map(() => `SELECT ${PLAIN_VALUES} FROM waymark_runs WHERE id = ? AND epoch = ?`)
          .join(' UNION ALL ');
    const params = pg
      ? [first.runId, epoch, ...rows.flatMap(values)]
      : rows.flatMap((r) => [...values(r), first.runId, epoch]);
    let affected: number | undefined;
    try {
      ({ affected } = await this.db.exec(
        `append to stream "${first.stream}" of run "${first.runId}"`,
        this.db.sql(sql),
        params,
      ));
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      return (await this.landed(first)) ? 'ok' : 'duplicate';
    }
    if (affected !== rows.length) throw new LeaseLostError(first.runId, epoch);
    return 'ok';
  }

  /**
   * Whether `row` is stored as it is, at its offset: the batches of one append are one
   * statement, so its first row tells whether the whole append committed. Only the holder of
   * the run's epoch can write there, and the offset was free when it read the tail.
   */
  private async landed(row: StreamBatchRow): Promise<boolean> {
    const { records } = await this.db.exec(
      `read stream "${row.stream}" of run "${row.runId}" at ${row.firstOffset}`,
      this.db.sql(
        'SELECT chunk_count, chunks, restart, step_seq FROM waymark_stream_chunks ' +
          'WHERE run_id = ? AND stream = ? AND first_offset = ?',
      ),
      [row.runId, row.stream, row.firstOffset],
    );
    const stored = records[0] as Record<string, unknown> | undefined;
    return (
      stored !== undefined &&
      Number(stored.chunk_count) === row.count &&
      stored.chunks === row.chunks &&
      (stored.restart ?? null) === row.restart &&
      (stored.step_seq === null ? null : Number(stored.step_seq)) === row.stepSeq
    );
  }

  /** The stream's next offset, whether it is closed, and the steps that wrote to it. */
  async tail(runId: string, stream: string): Promise<StreamTail> {
    const { records } = await this.db.exec(
      `read the end of stream "${stream}" of run "${runId}"`,
      this.db.sql(
        'SELECT step_seq, MAX(first_offset + chunk_count) AS next_offset, MAX(closed) AS closed ' +
          'FROM waymark_stream_chunks WHERE run_id = ? AND stream = ? GROUP BY step_seq',
      ),
      [runId, stream],
    );
    let nextOffset = 0;
    let closed = false;
    const stepSeqs = new Set<number>();
    for (const raw of records) {
      nextOffset = Math.max(nextOffset, Number(raw.next_offset));
      closed ||= Number(raw.closed) === 1;
      if (raw.step_seq !== null && raw.step_seq !== undefined) stepSeqs.add(Number(raw.step_seq));
    }
    return { nextOffset, closed, stepSeqs };
  }

  /** Up to `limit` batches holding offsets from `from` on, in order. */
  async read(
    runId: string,
    stream: string,
    from: number,
    limit: number,
  ): Promise<StreamBatchRow[]> {
    const { records } = await this.db.exec(
      `read stream "${stream}" of run "${runId}"`,
      this.db.sql(
        `SELECT ${COLUMNS} FROM waymark_stream_chunks WHERE run_id = ? AND stream = ? ` +
          'AND first_offset > ? AND first_offset + chunk_count > ? ORDER BY first_offset LIMIT ?',
      ),
      [runId, stream, from - MAX_BATCH_CHUNKS - 1, from, limit],
    );
    return records.map(toBatchRow);
  }

  /** The stream's last batch (none when the stream is empty): where it ends, by its key. */
  async lastBatch(runId: string, stream: string): Promise<StreamBatchRow[]> {
    const { records } = await this.db.exec(
      `read the end of stream "${stream}" of run "${runId}"`,
      this.db.sql(
        `SELECT ${COLUMNS} FROM waymark_stream_chunks WHERE run_id = ? AND stream = ? ` +
          'ORDER BY first_offset DESC LIMIT 1',
      ),
      [runId, stream],
    );
    return records.map(toBatchRow);
  }

  /** The streams a run wrote to, by name. */
  async list(runId: string): Promise<StreamSummary[]> {
    const { records } = await this.db.exec(
      `list the streams of run "${runId}"`,
      this.db.sql(
        'SELECT stream, MAX(first_offset + chunk_count) AS length, MAX(closed) AS closed ' +
          'FROM waymark_stream_chunks WHERE run_id = ? GROUP BY stream ORDER BY stream',
      ),
      [runId],
    );
    return records.map((raw) => ({
      name: String(raw.stream),
      length: Number(raw.length),
      closed: Number(raw.closed) === 1,
    }));
  }

  /** The run's status, or undefined when there is no such run. */
  async runStatus(runId: string): Promise<RunStatus | undefined> {
    const { records } = await this.db.exec(
      `read the status of run "${runId}"`,
      this.db.sql('SELECT status FROM waymark_runs WHERE id = ?'),
      [runId],
    );
    const raw = records[0] as { status: RunStatus } | undefined;
    return raw?.status;
  }
}

function toBatchRow(raw: Record<string, unknown>): StreamBatchRow {
  return {
    runId: String(raw.run_id),
    stream: String(raw.stream),
    firstOffset: Number(raw.first_offset),
    count: Number(raw.chunk_count),
    chunks: String(raw.chunks),
    restart: typeof raw.restart === 'string' ? raw.restart : null,
    closed: Number(raw.closed) === 1,
    stepSeq: raw.step_seq === null || raw.step_seq === undefined ? null : Number(raw.step_seq),
    createdAt: Number(raw.created_at),
  };
}
