import { isDuplicateKey } from './Dialect';
import type { DirectQuery, DirectResult } from './DirectDriver';

/**
 * SQLite: runs `statements` in one transaction on its one connection (one commit, one sync to
 * disk). A duplicate key aborts only its own statement and is returned in its place; any other
 * failure rolls all back and is thrown. The caller holds the connection meanwhile.
 */
export async function runTogether(
  direct: DirectQuery,
  statements: ReadonlyArray<[string, unknown[]]>,
): Promise<Array<DirectResult | Error>> {
  await direct('BEGIN IMMEDIATE', []);
  try {
    const results: Array<DirectResult | Error> = [];
    for (const [sql, params] of statements) {
      try {
        results.push(await direct(sql, params));
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        results.push(error as Error);
      }
    }
    await direct('COMMIT', []);
    return results;
  } catch (error) {
    await direct('ROLLBACK', []).catch(() => undefined);
    throw error;
  }
}
