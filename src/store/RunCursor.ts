import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { assertRunId } from '../model/identifiers';
import type { RunRow } from './rows';

/** The cursor of the page after `row` in `list()`. */
export function encodeCursor(row: RunRow): string {
  return Buffer.from(JSON.stringify([row.createdAt, row.id])).toString('base64url');
}

/**
 * A cursor is base64url JSON `[createdAt, id]`. Anything else — also a hand-made one whose
 * time is not a whole number of milliseconds a `BIGINT` holds (`1.5`, `1e20`, `1e400`) or
 * whose id no run could have — is refused before it reaches the database.
 */
export function decodeCursor(cursor: unknown): { createdAt: number; id: string } {
  // A real cursor is under 2.1 KB even for 255 control characters, each escaped as \u00XX.
  if (typeof cursor === 'string' && cursor.length <= 4096) {
    try {
      const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (Array.isArray(decoded) && decoded.length === 2) {
        const [createdAt, id] = decoded as [unknown, unknown];
        assertRunId(id, 'list(): cursor');
        if (Number.isSafeInteger(createdAt) && (createdAt as number) >= 0) {
          return { createdAt: createdAt as number, id };
        }
      }
    } catch {
      // fall through to the error below
    }
  }
  const shown = typeof cursor === 'string' ? JSON.stringify(cursor.slice(0, 80)) : typeof cursor;
  throw new InvalidArgumentError('list(): cursor', `${shown} is not one returned by list()`);
}
