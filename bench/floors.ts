import Database from 'better-sqlite3';
import { createConnection, type Connection } from 'mysql2/promise';
import { Client } from 'pg';
import { join } from 'node:path';

/** The fastest a checkpoint can be: one committed INSERT of the same row, no library. */
export interface Floor {
  readonly name: string;
  /** The database waymark runs against, beside the floor's own table. */
  readonly url: string;
  open(): Promise<void>;
  insertMany(count: number): Promise<void>;
  close(): Promise<void>;
}

const row = (i: number): [string, number, string] => [
  'floor',
  i,
  JSON.stringify({ i, text: 'x'.repeat(100) }),
];
const CREATE =
  'CREATE TABLE IF NOT EXISTS bench_floor (run_id VARCHAR(64), seq INT, output TEXT, PRIMARY KEY (run_id, seq))';

/** SQLite file (WAL, synchronous=NORMAL, as waymark opens it), MariaDB and PostgreSQL. */
export function floors(dir: string): Floor[] {
  let sqlite: Database.Database;
  let mysql: Connection;
  let pg: Client;
  let offset = 0;
  const sqliteFile = join(dir, 'bench.db');
  return [
    {
      name: 'SQLite file (WAL)',
      url: `sqlite:${sqliteFile}`,
      async open() {
        sqlite = new Database(sqliteFile);
        sqlite.pragma('journal_mode = WAL');
        sqlite.pragma('synchronous = NORMAL');
        sqlite.exec(CREATE);
      },
      async insertMany(count) {
        const insert = sqlite.prepare('INSERT INTO bench_floor VALUES (?, ?, ?)');
        for (let i = 0; i < count; i++) insert.run(...row(offset++));
      },
      async close() {
        sqlite.close();
      },
    },
    {
      name: 'MariaDB',
      url: 'mysql://root@127.0.0.1:3306/test',
      async open() {
        mysql = await createConnection({ host: '127.0.0.1', user: 'root', database: 'test' });
        await mysql.query('DROP TABLE IF EXISTS bench_floor');
        await mysql.query(CREATE);
      },
      async insertMany(count) {
        for (let i = 0; i < count; i++)
          await mysql.execute('INSERT INTO bench_floor VALUES (?, ?, ?)', row(offset++));
      },
      async close() {
        await mysql.query('DROP TABLE IF EXISTS bench_floor');
        await mysql.end();
      },
    },
    {
      name: 'PostgreSQL',
      url: 'postgres://postgres@127.0.0.1:5432/test',
      async open() {
        pg = new Client({ host: '127.0.0.1', user: 'postgres', database: 'test' });
        await pg.connect();
        await pg.query('DROP TABLE IF EXISTS bench_floor');
        await pg.query(CREATE);
      },
      async insertMany(count) {
        for (let i = 0; i < count; i++)
          await pg.query('INSERT INTO bench_floor VALUES ($1, $2, $3)', row(offset++));
      },
      async close() {
        await pg.query('DROP TABLE IF EXISTS bench_floor');
        await pg.end();
      },
    },
  ];
}
