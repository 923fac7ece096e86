import type { DataSource } from 'typeorm';

/** What {@link seedStream} writes: `chunks` string chunks of about `chunkBytes`, `perBatch` a row. */
export interface SeededStream {
  runId: string;
  stream: string;
  chunks: number;
  perBatch?: number;
  chunkBytes?: number;
  closed?: boolean;
}

/**
 * Writes a stream's batches straight into `waymark_stream_chunks`, 100 rows an INSERT, so a
 * test can have 300,000 chunks in seconds. The run row must exist (see `seedHistory`).
 * Chunk `i` is `c<i>` padded with dots to `chunkBytes`.
 */
export async function seedStream(dataSource: DataSource, seed: SeededStream): Promise<void> {
  const pg = dataSource.options.type === 'postgres';
  const perBatch = seed.perBatch ?? 300;
  const pad = '.'.repeat(Math.max(0, (seed.chunkBytes ?? 100) - 8));
  const rows: unknown[][] = [];
  for (let first = 0; first < seed.chunks; first += perBatch) {
    const count = Math.min(perBatch, seed.chunks - first);
    const chunks = Array.from({ length: count }, (_, i) => `c${first + i}${pad}`);
    const closed = seed.closed === true && first + count >= seed.chunks ? 1 : 0;
    rows.push([seed.runId, seed.stream, first, count, JSON.stringify(chunks), null, closed, 0, 0]);
  }
  for (let at = 0; at < rows.length; at += 100) {
    const part = rows.slice(at, at + 100);
    let n = 0;
    const values = part
      .map(() => `(${Array.from({ length: 9 }, () => (pg ? `$${++n}` : '?')).join(', ')})`)
      .join(', ');
    await dataSource.query(
      'INSERT INTO waymark_stream_chunks (run_id, stream, first_offset, chunk_count, chunks, ' +
        `restart, closed, step_seq, created_at) VALUES ${values}`,
      part.flat(),
    );
  }
}
