/**
 * Durable streams (issue 15, SPEC §10): chunks stored per second by one run, and how long a
 * reader in another process waits for a chunk after it was written.
 *
 *   npm run bench:streams              # SQLite file, PostgreSQL, MariaDB (≈ 1 minute)
 *
 * Throughput: one step writes 100,000 chunks `{ i, t }`, yielding to the event loop every 50
 * (as tokens arriving from a socket do); the time runs from `start()` to the run's end, so it
 * includes every batch write. Baseline, in the same run and database: the same chunks stored
 * one INSERT per chunk (what a stream without batching would cost), for 2,000 chunks.
 * Lag: a child process writes a chunk every 5 ms for 4 s; this process reads the stream
 * (polling the store, as a reader in another process does) and takes receive time − write time.
 * Prints markdown.
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { container } from 'tsyringe';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { Streamer, type BenchChunk } from './fixtures/Streamer';
import * as databases from './lib/databases';
import { median, ratio, withRange } from './lib/stats';
import { runChild } from '../test/support/runChild';

const CHUNKS = 100_000;
const BURST = 50;
const FLOOR_CHUNKS = 2_000;
const ROUNDS = 3;
const LAG_CHUNKS = 800;
const LAG_GAP_MS = 5;
const STREAMS_DB = 'waymark_bench_streams';

interface Target {
  name: string;
  url: string;
  goal?: number;
}

async function throughput(runtime: WaymarkRuntime, round: number): Promise<number> {
  const started = performance.now();
  const handle = await runtime.start(Streamer, 'run', [
    `tp-${round}-${Date.now()}`,
    CHUNKS,
    BURST,
    0,
  ]);
  await handle.result();
  return CHUNKS / ((performance.now() - started) / 1000);
}

/** One INSERT per chunk into the same table, through the runtime's own connection. */
async function floor(runtime: WaymarkRuntime, round: number): Promise<number> {
  const pg = runtime.dataSource.options.type === 'postgres';
  const sql =
    'INSERT INTO waymark_stream_chunks (run_id, stream, first_offset, chunk_count, chunks, restart, closed, step_seq, created_at) ' +
    (pg ? 'VALUES ($1, $2, $3, 1, $4, NULL, 0, 0, $5)' : 'VALUES (?, ?, ?, 1, ?, NULL, 0, 0, ?)');
  const runId = `floor-${round}-${Date.now()}`;
  const started = performance.now();
  for (let i = 0; i < FLOOR_CHUNKS; i++) {
    await runtime.dataSource.query(sql, [
      runId,
      'bench',
      i,
      JSON.stringify([{ i, t: Date.now() }]),
      Date.now(),
    ]);
  }
  return FLOOR_CHUNKS / ((performance.now() - started) / 1000);
}

/** Lags in ms of a reader here behind a writer in a child process. */
async function lag(runtime: WaymarkRuntime, url: string): Promise<number[]> {
  const runId = `lag-${Date.now()}`;
  const child = spawn(
    process.execPath,
    [
      '-r',
      '@swc-node/register',
      'bench/fixtures/streamWriterChild.ts',
      url,
      runId,
      String(LAG_CHUNKS),
      String(LAG_GAP_MS),
    ],
    { cwd: resolve(__dirname, '..'), stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const exited = new Promise<number | null>((done) => child.once('close', done));
  for (;;) {
    if ((await runtime.list({ limit: 10 })).runs.some((r) => r.runId === runId)) break;
    await new Promise((wake) => setTimeout(wake, 5));
  }
  const lags: number[] = [];
  for await (const { chunk } of runtime.readStream<BenchChunk>(runId, 'bench')) {
    if (chunk) lags.push(Date.now() - chunk.t);
  }
  if ((await exited) !== 0) throw new Error('the writer process failed');
  return lags;
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

async function measure(target: Target): Promise<string[]> {
  container.clearInstances();
  const runtime = await Waymark.create({ database: target.url });
  try {
    const rates: number[] = [];
    const floors: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rates.push(await throughput(runtime, round));
      floors.push(await floor(runtime, round));
    }
    const lags = await lag(runtime, target.url);
    const met =
      target.goal === undefined
        ? ''
        : median(rates) >= target.goal
          ? ' (target ≥ ' + target.goal.toLocaleString('en') + ': MET)'
          : ' (target ≥ ' + target.goal.toLocaleString('en') + ': MISSED)';
    return [
      `| ${target.name} | ${withRange(rates)}${met} | ${withRange(floors)} | ${ratio(median(rates), median(floors))} | ${median(lags).toFixed(0)} / ${percentile(lags, 0.95).toFixed(0)} / ${Math.max(...lags).toFixed(0)} |`,
    ];
  } finally {
    await runtime.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-streams-'));
  await databases.recreatePostgres(STREAMS_DB);
  await databases.recreateMariaDb(STREAMS_DB);
  const targets: Target[] = [
    { name: 'SQLite file (WAL)', url: `sqlite:${join(dir, 'streams.db')}`, goal: 20_000 },
    { name: 'PostgreSQL', url: `postgres://postgres@127.0.0.1:5432/${STREAMS_DB}`, goal: 5_000 },
    { name: 'MariaDB', url: `mysql://root@127.0.0.1:3306/${STREAMS_DB}` },
  ];
  const rows: string[] = [];
  try {
    for (const target of targets) rows.push(...(await measure(target)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `- date: ${new Date().toISOString()}; ${cpus().length} cores; load average at end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `- ${CHUNKS.toLocaleString('en')} chunks per run, ${ROUNDS} rounds; lag: ${LAG_CHUNKS} chunks, one per ${LAG_GAP_MS} ms, read from another process (target ≤ 100 ms)\n`,
  );
  console.log(
    '| database | chunks/s, one run (median (min–max)) | baseline: one INSERT per chunk, chunks/s | against the baseline | cross-process lag, ms (median / p95 / max) |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
}

runChild(main);
