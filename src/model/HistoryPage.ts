/** Options of `history(runId, page)`: one page of a run's step records, by sequence number. */
export interface HistoryPageOptions {
  /**
   * The first sequence number of the page (inclusive). Default: 0, or with
   * `order: 'desc'` the run's last step. The next page starts after the last record's
   * `seq` (`seq + 1`, or `seq - 1` going down).
   */
  from?: number;
  /** At most this many records: 1 to {@link MAX_HISTORY_PAGE}, default {@link DEFAULT_HISTORY_PAGE}. */
  limit?: number;
  /** `'asc'` (default): `seq` from `from` upwards. `'desc'`: from `from` downwards, latest first. */
  order?: 'asc' | 'desc';
  /**
   * Each completed step's `output` is cut at this many characters (default 200);
   * `Infinity` gives whole values.
   */
  valueChars?: number;
  /**
   * Each error's `message` is cut at this many characters, its `name` and `code` at
   * `MAX_ERROR_NAME_CHARS` (200) at most, a cut one ending with how many were left out
   * (`… (4000 more characters)`); default: whole. With
   * it, the database reads only those starts, never a whole stored error (its stack, a
   * 1 MB `code`).
   */
  errorChars?: number;
}

/** Records in a history page when `limit` is not given. */
export const DEFAULT_HISTORY_PAGE = 100;

/** The most records one history page may ask for. */
export const MAX_HISTORY_PAGE = 1000;

/** The largest sequence number: `seq` is a 32-bit `INTEGER` column on every backend. */
export const MAX_SEQ = 2_147_483_647;
