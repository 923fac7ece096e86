/**
 * Stored bytes per step on a SQLite file: the size a fresh database grows by for one run of
 * N steps (after a WAL checkpoint and VACUUM), for waymark and LangGraph's SqliteSaver.
 */
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Waymark } from 'waymark';
import { Sequence } from './fixtures/Sequence';
import { freshId } from './lib/workload';
import { quiet } from './systems/waymark';

function compactSize(file: string): number {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('VACUUM');
  db.close();
  const wal = `${file}-wal`;
  return statSync(file).size + (existsSync(wal) ? statSync(wal).size : 0);
}

/** Bytes a fresh waymark SQLite database grows by for one run of `steps` steps. */
export async function waymarkSqliteBytes(dir: string, steps: number): Promise<number> {
  const file = join(dir, `bytes-waymark-${steps}.db`);
  await (await Waymark.create({ database: `sqlite:${file}`, logger: quiet })).close();
  const empty = compactSize(file);
  const runtime = await Waymark.create({ database: `sqlite:${file}`, logger: quiet });
  await runtime.run(Sequence, 'run', [freshId('bytes'), steps]);
  await runtime.close();
  return compactSize(file) - empty;
}

/** Bytes a fresh SqliteSaver database grows by for one StateGraph thread of `steps` steps. */
export async function langgraphSqliteBytes(dir: string, steps: number): Promise<number> {
  const { sqliteSaver, sequenceGraph } = await import('./systems/langgraph');
  const file = join(dir, `bytes-langgraph-${steps}.db`);
  let saver = sqliteSaver(file);
  await saver.saver.getTuple({ configurable: { thread_id: 'none' } }); // creates its tables
  await saver.close();
  const empty = compactSize(file);
  saver = sqliteSaver(file);
  await sequenceGraph(saver.saver).invoke(
    { steps, i: 0 },
    {
      configurable: { thread_id: freshId('bytes') },
      durability: 'sync',
      recursionLimit: steps + 10,
    },
  );
  await saver.close();
  return compactSize(file) - empty;
}
