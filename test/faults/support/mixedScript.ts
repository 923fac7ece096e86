import { mulberry32, upTo } from '../../support/SeededRandom';
import type { SqlResult, SqlSession } from './SqlSession';

/** One statement, issued when called. */
type Statement = (db: SqlSession, table: string) => Promise<SqlResult>;

/** Runs the script on `db` against `table`; `pipelined` issues each group without waiting. */
export type MixedScript = (
  db: SqlSession,
  table: string,
  pipelined: boolean,
) => Promise<SqlResult[]>;

/** Ids from here up hold large values, left out of the whole-table reads. */
const LARGE = 1_000_000;
const ALPHABET = 'abcdefghij KLMNOP 0123 \' " é ü 漢字 — \\ %';

/**
 * A seeded mix of statements on `table (id INT PRIMARY KEY, v TEXT)` in `groups` groups: text
 * and prepared inserts, reads, updates, deletes, duplicate keys, committed and rolled-back
 * transactions, values large enough to span many TCP chunks. The same seed gives the same
 * statements; run through a proxy and directly, they must give the same results.
 */
export function mixedScript(seed: number, groups: number): MixedScript {
  const random = mulberry32(seed);
  const text = (length: number) =>
    Array.from({ length }, () => ALPHABET[upTo(random, ALPHABET.length - 1)]).join('');
  const ids: number[] = [];
  let next = 1;
  const anyId = () => (ids.length ? ids[upTo(random, ids.length - 1)] : 0);
  const insert = (table: string) => `INSERT INTO ${table} (id, v) VALUES (?, ?)`;
  const makers: Array<() => Statement[]> = [
    () => {
      const [id, v] = [next++, text(upTo(random, 40))];
      ids.push(id);
      return [(db, t) => db.query(insert(t), [id, v])];
    },
    () => {
      const [id, v] = [next++, text(upTo(random, 40))];
      ids.push(id);
      return [(db, t) => db.execute(insert(t), [id, v], 'insert_row')];
    },
    () => {
      const id = anyId();
      return [(db, t) => db.execute(`SELECT id, v FROM ${t} WHERE id = ?`, [id], 'read_row')];
    },
    () => [(db, t) => db.query(`SELECT id, v FROM ${t} WHERE id < ${LARGE} ORDER BY id`)],
    () => [(db, t) => db.query(`SELECT COUNT(*) AS n FROM ${t}`)],
    () => {
      const [id, v] = [anyId(), text(12)];
      return [(db, t) => db.query(`UPDATE ${t} SET v = ? WHERE id = ?`, [v, id])];
    },
    () => {
      const id = anyId();
      return [(db, t) => db.execute(`DELETE FROM ${t} WHERE id = ?`, [id])];
    },
    () => {
      const id = anyId();
      return [(db, t) => db.query(insert(t), [id, 'duplicate'])];
    },
    () => {
      const [id, v, end] = [next++, text(20), random() < 0.5 ? 'COMMIT' : 'ROLLBACK'];
      if (end === 'COMMIT') ids.push(id);
      return [
        (db) => db.query('BEGIN'),
        (db, t) => db.query(insert(t), [id, v]),
        (db, t) => db.query(`UPDATE ${t} SET v = ? WHERE id = ?`, [`${v}!`, id]),
        (db, t) => db.query(`SELECT v FROM ${t} WHERE id = ?`, [id]),
        (db) => db.query(end),
      ];
    },
    () => {
      const [id, v] = [LARGE + next++, text(20_000 + upTo(random, 100_000))];
      return [
        (db, t) => db.query(insert(t), [id, v]),
        (db, t) => db.execute(`SELECT v FROM ${t} WHERE id = ?`, [id], 'read_large'),
      ];
    },
  ];
  const script = Array.from({ length: groups }, () => makers[upTo(random, makers.length - 1)]());
  return async (db, table, pipelined) => {
    const results: SqlResult[] = [];
    for (const group of script) {
      if (pipelined) {
        results.push(...(await Promise.all(group.map((statement) => statement(db, table)))));
      } else {
        for (const statement of group) results.push(await statement(db, table));
      }
    }
    return results;
  };
}
