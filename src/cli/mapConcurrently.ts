/**
 * `items.map(work)` with at most `limit` calls in flight, results in input order; keeps a
 * listing from opening a query per row all at once.
 *
 * @example
 * ```ts
 * const histories = await mapConcurrently(runs, 4, (run) => runtime.history(run.runId));
 * ```
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
