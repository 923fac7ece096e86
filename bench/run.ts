/**
 * waymark beside a floor of one plain INSERT per step, DBOS Transact and LangGraph, on the
 * same workload, each system in a process of its own (perStepChild.ts), taking turns round by
 * round (SPEC §10). The floor ratio, the per-step target, comes from paired blocks
 * (pairedRatio.ts): waymark and the floor on one database, in processes kept open, in turn.
 *
 *   npm run bench               # full: N = 100 and 1,000 (5 rounds), 10,000-step growth,
 *                               #   resume, stored bytes, 1/2/4 workers, memory (≈ 10 min)
 *   npm run bench -- --quick    # the same table in under 3 minutes: 3 rounds, LangGraph
 *                               #   at N = 100 only, no 10,000-step figures, 1 and 2 workers
 *   npm run bench -- --only=steps,resume   # sections: steps growth resume bytes scaling memory audit concurrency fleet
 *
 * The peers (bench/package.json) are installed on first use. Prints one markdown table.
 */
import 'reflect-metadata';
import { execFileSync, execSync } from 'node:child_process';
import type { ChildResult } from './perStepChild';
import { perStepSystems, systemKey } from './perStepSystems';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { Waymark } from 'waymark';
import { Sequence } from './fixtures/Sequence';
import { floors } from './floors';
import {
  installCounters,
  since,
  snapshot,
  startTexts,
  stopTexts,
  total,
  type StatementCounts,
} from './lib/counter';
import * as databases from './lib/databases';
import { BENCH_DIR, ensurePeersInstalled, typecheckBench, versionOf } from './lib/install';
import { median, ratio, withRange } from './lib/stats';
import { baseline, type System } from './lib/workload';
import { measureMemory } from './memory';
import { CONCURRENCY, measureConcurrency, rateAt } from './concurrency';
import { GROUP_COMMIT_FLOOR, ONE_COMMIT_FLOOR } from './concurrencyFloors';
import { crashAndResume } from './resume';
import { pairedBlocks, pairedRates, type PairedBlocks } from './pairedRatio';
import { measureScaling } from './scaling';
import * as storage from './storage';
import * as waymark from './systems/waymark';

// The peers are installed on first use, before anything loads them.
ensurePeersInstalled();
typecheckBench();

const quick = process.argv.includes('--quick');
const onlyArg = process.argv.find((a) => a.startsWith('--only='));
const SECTIONS = [
  'steps',
  'growth',
  'resume',
  'bytes',
  'scaling',
  'memory',
  'audit',
  'concurrency',
  'fleet',
] as const;
type Section = (typeof SECTIONS)[number];
const sections = new Set<Section>(
  onlyArg
    ? (onlyArg.slice('--only='.length).split(',') as Section[])
    : SECTIONS.filter((s) => !(quick && s === 'growth')),
);
const NS = [100, 1000];
const ROUNDS = quick ? 3 : 5;
/** The floor ratio's pairs: blocks of PAIRED_N steps, waymark and the floor in turn. */
const PAIRED_BLOCKS = quick ? 8 : 20;
const PAIRED_N = 250;
/** Paired blocks at C = 64, each of this many timed passes per system (about 6 s a block). */
const PAIRED_C64_BLOCKS = quick ? 3 : 10;
const PAIRED_C64_PASSES = 5;
/** LangGraph's checkpoints grow with N²: in --quick it runs at N = 100 only. */
const LANGGRAPH_MAX_N = quick ? 100 : 1000;
const flags = [quick ? '--quick' : '', onlyArg ?? ''].filter(Boolean).join(' ');
const command = flags ? `npm run bench -- ${flags}` : 'npm run bench';

// DBOS (through pg) warns that its clients queue queries; it is not ours to fix.
process.noDeprecation = true;

/** One line of the printed table. */
interface Line {
  figure: string;
  database: string;
  system: string;
  result: string;
  statements: string;
  ratio: string;
  /** The command that measures this row alone. */
  command: string;
}
const lines: Line[] = [];
let currentSection = '';
const sectionCommand = (only: string): string =>
  `npm run bench --${quick ? ' --quick' : ''} --only=${only}`;
const line = (l: Partial<Line> & { figure: string }): void => {
  lines.push({
    database: '',
    system: '',
    result: '',
    statements: '',
    ratio: '',
    command: sectionCommand(currentSection),
    ...l,
  });
};
/** Target verdicts, printed under the table. */
const verdicts: string[] = [];
/** Sections whose measurement threw (their row says FAILED). */
const failedSections: string[] = [];
const verdict = (met: boolean | undefined, text: string): void => {
  verdicts.push(`- ${met === undefined ? 'not measured' : met ? 'MET' : 'MISSED'}: ${text}`);
};

const us = (ms: number, steps: number): number => (ms * 1000) / steps;
const perStep = (c: StatementCounts, steps: number): string => {
  const f = (x: number): string => (x / steps).toFixed(2).replace(/\.00$/, '');
  return `${f(total(c))} (${f(c.read)} r, ${f(c.write)} w, ${f(c.tx)} tx${c.other ? `, ${f(c.other)} other` : ''})`;
};
const diff = (a: StatementCounts, b: StatementCounts): StatementCounts => ({
  read: a.read - b.read,
  write: a.write - b.write,
  tx: a.tx - b.tx,
  other: a.other - b.other,
});

interface Measured {
  system: System;
  /** ms per run, by N. */
  times: Map<number, number[]>;
  /** ms of the same N plain async calls, measured in the same process just before each run. */
  baselines: Map<number, number[]>;
  /** Statements of the last run at each N. */
  counts: Map<number, StatementCounts>;
  /** Id of the last run at each N. */
  ids: Map<number, string>;
}

function header(servers: { mariadb: string; postgres: string }, sqlite: string): string[] {
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { cwd: BENCH_DIR }).toString().trim();
    const dirty = execSync('git status --porcelain -- ../src', { cwd: BENCH_DIR }).toString();
    if (dirty.trim()) commit += ' + uncommitted changes in src/';
  } catch {
    /* not a git checkout */
  }
  const root = JSON.parse(readFileSync(join(BENCH_DIR, '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  const cpu = cpus();
  const packages = [
    'typeorm',
    'better-sqlite3',
    'mysql2',
    'pg',
    'tsyringe',
    '@dbos-inc/dbos-sdk',
    '@langchain/langgraph',
    '@langchain/langgraph-checkpoint',
    '@langchain/langgraph-checkpoint-sqlite',
    '@langchain/langgraph-checkpoint-postgres',
    '@langchain/core',
  ];
  return [
    `# waymark benchmark (${quick ? 'quick' : 'full'}): \`${command}\``,
    '',
    `- date: ${new Date().toISOString()}`,
    `- machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Linux ${release()}; load average at start ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
    `- node ${process.version}; waymark ${root.version} (src/ at ${commit}); ` +
      packages.map((p) => `${p} ${versionOf(p)}`).join(', '),
    `- servers: MariaDB ${servers.mariadb}, PostgreSQL ${servers.postgres}, SQLite ${sqlite} (better-sqlite3)`,
    `- workload: N sequential steps each returning { i, text: 'x'.repeat(100) }; overhead = (durable time − the same N plain async calls) / N; ` +
      `median (min–max) of ${ROUNDS} rounds after a warm-up, systems interleaved round by round in rotating order; ` +
      `the floor ratio (the target) is the median of ${PAIRED_BLOCKS} paired blocks: waymark and the floor, each in a process of its own kept open, ${PAIRED_N} steps in turn`,
    '',
  ];
}

async function perStepSection(dir: string): Promise<void> {
  const systems = perStepSystems(dir);
  const maxN = (s: System): number =>
    s.label.startsWith('LangGraph') ? LANGGRAPH_MAX_N : Number.POSITIVE_INFINITY;
  const measured: Measured[] = systems.map((system) => ({
    system,
    times: new Map(),
    baselines: new Map(),
    counts: new Map(),
    ids: new Map(),
  }));
  // Each system in a process of its own, as users run them; the systems take turns, in an
  // order that rotates from round to round.
  for (let round = 0; round < ROUNDS; round++) {
    const order = measured.map((_, i) => measured[(i + round * 3) % measured.length]);
    for (const m of order) {
      const ns = NS.filter((n) => n <= maxN(m.system));
      const result = runChild(dir, systemKey(m.system), ns);
      for (const r of result.runs) {
        m.counts.set(r.n, r.counts);
        m.ids.set(r.n, r.id);
        m.times.set(r.n, [...(m.times.get(r.n) ?? []), r.ms]);
        m.baselines.set(r.n, [...(m.baselines.get(r.n) ?? []), r.baseline]);
      }
      if (round === ROUNDS - 1 && result.storedBytes !== undefined) {
        const n = Math.max(...m.ids.keys());
        storedPg.push({ system: m.system, n, bytes: result.storedBytes });
      }
    }
    console.error(`  per-step: round ${round + 1}/${ROUNDS} done`);
  }

  const overhead = (m: Measured, n: number): number[] => {
    const baselines = m.baselines.get(n) ?? [];
    return (m.times.get(n) ?? []).map((t, i) =>
      us(m.system.kind === 'floor' ? t : t - baselines[i], n),
    );
  };
  const med = (m: Measured | undefined, n: number): number =>
    m && m.times.has(n) ? median(overhead(m, n)) : Number.NaN;
  const find = (label: string, db: string): Measured | undefined =>
    measured.find((m) => m.system.label === label && m.system.db === db);
  const top = Math.max(...NS);
  // The targets' ratio: waymark and the floor on each database, block by block (pairedRatio.ts).
  const paired = new Map<string, PairedBlocks>();
  for (const m of measured.filter((x) => x.system.kind === 'waymark')) {
    const floor = find('one-INSERT floor', m.system.db);
    if (!floor) continue;
    const keys = [systemKey(m.system), systemKey(floor.system)] as const;
    paired.set(m.system.db, await pairedBlocks(dir, ...keys, PAIRED_BLOCKS, PAIRED_N));
    console.error(`  per-step: paired blocks on ${m.system.db} done`);
  }
  for (const m of measured) {
    const { system } = m;
    const ns = NS.filter((n) => m.times.has(n));
    const last = ns[ns.length - 1];
    // Per completed step: the difference between the two N, so a run's own create/finish
    // statements do not count; over one N when only one was measured.
    const counts =
      ns.length > 1 ? diff(m.counts.get(last)!, m.counts.get(ns[0])!) : m.counts.get(last)!;
    const perN = ns.length > 1 ? last - ns[0] : last;
    let r = '';
    if (system.kind === 'waymark') {
      const pairs = paired.get(system.db);
      const pairedRatio = pairs ? median(pairs.ratios) : Number.NaN;
      r = `${pairedRatio.toFixed(2)}× floor (paired; ${ratio(med(m, top), med(find('one-INSERT floor', system.db), top))} of the medians)`;
      floorRatios.push({ db: system.db, ratio: pairedRatio });
      writesPerStep.push({
        db: system.db,
        writes: counts.write / perN,
        total: total(counts) / perN,
      });
    } else if (system.kind === 'floor' && system.label !== 'one-INSERT floor') {
      r = `${ratio(med(m, top), med(find('one-INSERT floor', system.db), top))} floor`;
    } else if (system.kind !== 'floor') {
      // A peer against waymark on the same database and durability, at the largest N both ran.
      r = `${ratio(med(m, last), med(find('waymark', system.db), last))} waymark`;
    }
    line({
      figure: 'per-step overhead, µs (N = 100 · N = 1,000)',
      database: system.db,
      system:
        system.kind === 'not durable per step'
          ? `${system.label} (NOT durable per step)`
          : system.label,
      result: NS.map((n) => (m.times.has(n) ? withRange(overhead(m, n)) : 'not run')).join(' · '),
      statements: perStep(counts, perN),
      ratio: r,
    });
  }
  for (const [db, pairs] of paired) {
    line({
      figure: `waymark ÷ floor per step, ${PAIRED_BLOCKS} paired blocks of ${PAIRED_N} steps (waymark µs · floor µs)`,
      database: db,
      system: 'waymark ÷ one-INSERT floor',
      result: `${withRange(pairs.ratios, 2)} (${withRange(pairs.waymarkUs)} · ${withRange(pairs.floorUs)})`,
      ratio: `${median(pairs.ratios).toFixed(2)}×`,
    });
  }
  // The peers that make each step durable before the next, against waymark on the same database.
  for (const m of measured) {
    const { label, db } = m.system;
    const isPeer =
      label.startsWith('DBOS') || (label.includes('StateGraph') && label.includes("'sync'"));
    if (!isPeer) continue;
    const n = Math.max(...m.times.keys());
    const r = med(m, n) / med(find('waymark', db), n);
    verdict(r >= 4, `waymark at least 4× below ${label} on ${db}: ${r.toFixed(2)}× at N = ${n}`);
  }
}

const floorRatios: Array<{ db: string; ratio: number }> = [];
const writesPerStep: Array<{ db: string; writes: number; total: number }> = [];
const storedPg: Array<{ system: System; n: number; bytes: number }> = [];

async function growthSection(dir: string): Promise<void> {
  const rounds = quick ? 1 : ROUNDS;
  const growthDir = join(dir, 'growth');
  mkdirSync(growthDir, { recursive: true });
  const systems: System[] = [...waymark.waymarkSystems(growthDir), ...floors(growthDir)];
  const sizes = [1000, 10_000];
  const times = new Map<System, Map<number, number[]>>(systems.map((s) => [s, new Map()]));
  for (const s of systems) await s.open();
  try {
    for (const s of systems) await s.run(50);
    for (let round = 0; round < rounds; round++) {
      const order = systems.map((_, i) => systems[(i + round) % systems.length]);
      for (const n of sizes) {
        const b = await baseline(n);
        for (const s of order) {
          const start = performance.now();
          await s.run(n);
          const elapsed = performance.now() - start;
          const byN = times.get(s)!;
          byN.set(n, [...(byN.get(n) ?? []), us(s.kind === 'floor' ? elapsed : elapsed - b, n)]);
        }
      }
      console.error(`  growth: round ${round + 1}/${rounds} done`);
    }
  } finally {
    for (const s of systems) await s.close();
  }
  for (const s of systems) {
    const byN = times.get(s)!;
    const g = median(byN.get(10_000)!) / median(byN.get(1000)!);
    line({
      figure: 'cost growth: per-step overhead, µs (N = 1,000 · N = 10,000)',
      database: s.db,
      system: s.label,
      result: `${withRange(byN.get(1000)!)} · ${withRange(byN.get(10_000)!)}`,
      ratio: `${g.toFixed(2)}× (10,000 / 1,000)`,
    });
    if (s.kind === 'waymark') verdict(g <= 1.2, `cost growth ≤ 1.2× on ${s.db}: ${g.toFixed(2)}×`);
  }
}

async function resumeSection(dir: string): Promise<void> {
  const dbs = waymark.waymarkDatabases(dir);
  const indexes = quick ? [0, 3] : [0, 1, 2, 3];
  for (const index of indexes) {
    const r = await crashAndResume(`waymark:${index}`, dir, 1000, 900);
    line({
      figure: 'resume: 1,000 steps, SIGKILL in step 901, new process resumes',
      database: dbs[index].db,
      system: 'waymark',
      result: `${r.ms.toFixed(0)} ms to resume and finish (open ${r.openMs.toFixed(0)} ms); ${r.executedCount} step bodies ran (from #${r.firstExecuted}); completed steps re-run: ${r.reRun}`,
      statements: `${r.historyQueries} history query; ${r.reads} reads, ${r.writes} writes`,
    });
    verdict(r.reRun === 0, `no completed step re-ran on ${dbs[index].db}: ${r.reRun} re-ran`);
  }
  for (const kind of quick
    ? ['langgraph-functional']
    : ['langgraph-functional', 'langgraph-graph']) {
    const r = await crashAndResume(kind as 'langgraph-functional', dir, 1000, 900);
    line({
      figure: 'resume: 1,000 steps, SIGKILL in step 901, new process resumes',
      database: waymark.POSTGRES_DB,
      system: `LangGraph ${kind === 'langgraph-functional' ? "functional API, durability 'sync'" : "StateGraph, durability 'sync'"} + PostgresSaver`,
      result: `${r.ms.toFixed(0)} ms to resume and finish; ${r.foundState ? 'resumed from its checkpoint' : 'NOTHING saved: started over'}; ${r.executedCount} step bodies ran (from #${r.firstExecuted}); completed steps re-run: ${r.reRun}`,
      statements: `${r.historyQueries} checkpoint reads; ${r.reads} reads, ${r.writes} writes`,
    });
  }
  // A long history: 10,000 completed steps, killed in the 10,001st.
  const long = quick ? [0] : [0, 2, 3];
  const steps = quick ? 2_000 : 10_000;
  for (const index of long) {
    const r = await crashAndResume(`waymark:${index}`, dir, steps + 1, steps);
    line({
      figure: `resume: ${steps.toLocaleString('en')}-step history (SIGKILL in step ${(steps + 1).toLocaleString('en')})`,
      database: dbs[index].db,
      system: 'waymark',
      result: `${r.ms.toFixed(0)} ms to load, replay and finish; completed steps re-run: ${r.reRun}`,
      statements: `${r.historyQueries} history query; ${r.reads} reads, ${r.writes} writes`,
    });
    verdict(
      r.historyQueries === 1,
      `${steps.toLocaleString('en')}-step history loaded in one query on ${dbs[index].db}: ${r.historyQueries}`,
    );
  }
}

async function bytesSection(dir: string): Promise<void> {
  for (const n of [100, 1000]) {
    const w = await storage.waymarkSqliteBytes(dir, n);
    const l = await storage.langgraphSqliteBytes(dir, n);
    line({
      figure: `stored bytes per step, one run of N = ${n.toLocaleString('en')} (growth of a fresh SQLite file, VACUUMed)`,
      database: 'SQLite file',
      system: `waymark · LangGraph StateGraph + SqliteSaver`,
      result: `${(w / n).toFixed(0)} B · ${(l / n).toFixed(0)} B (${(l / 1e6).toFixed(1)} MB for the run)`,
      ratio: `${ratio(l, w)} waymark`,
    });
    bytesPerStep.push({ n, waymark: w / n });
  }
  const ours = storedPg.find((s) => s.system.kind === 'waymark');
  for (const s of storedPg) {
    if (s.system.label.includes('default durability')) continue; // the same rows as 'sync'
    line({
      figure: `stored bytes per step, one run of N = ${s.n.toLocaleString('en')} (pg_column_size of its rows, after TOAST compression)`,
      database: s.system.db,
      system: s.system.label,
      result: `${(s.bytes / s.n).toFixed(0)} B (${(s.bytes / 1e6).toFixed(2)} MB for the run)`,
      command: sectionCommand('steps,bytes'),
      ratio: ours && s !== ours ? `${ratio(s.bytes / s.n, ours.bytes / ours.n)} waymark` : '',
    });
  }
  const [a, b] = bytesPerStep;
  if (a && b)
    verdict(
      b.waymark <= a.waymark * 1.2,
      `stored bytes per step constant (SQLite file): ${a.waymark.toFixed(0)} B at N = 100, ${b.waymark.toFixed(0)} B at N = 1,000`,
    );
}
const bytesPerStep: Array<{ n: number; waymark: number }> = [];
const loads: string[] = [];

/** Where the CPU went while the workers drained the queue (median over rounds). */
function cpuNote(r: import('./scaling').ScalingResult, runs: number): string {
  const workers = median(r.cpu.map((c) => c.workersMs)) / runs;
  const servers = r.cpu.map((c) => c.serverMs).filter((x): x is number => x !== undefined);
  const server = servers.length ? median(servers) / runs : undefined;
  const busy = median(r.cpu.map((c) => (c.workersMs + (c.serverMs ?? 0)) / c.wallMs));
  return (
    `CPU per run: workers ${workers.toFixed(1)} ms` +
    (server === undefined ? '' : `, MariaDB ${server.toFixed(1)} ms`) +
    `; ${busy.toFixed(2)} of ${cpus().length} cores busy; ` +
    `statements per run ${perStep(r.statements, runs * r.rate.length)}`
  );
}

async function scalingSection(): Promise<void> {
  const runs = quick ? 300 : 1000;
  const results = await measureScaling({
    workerCounts: quick ? [1, 2] : [1, 2, 4],
    runs,
    rounds: quick ? 1 : 3,
  });
  const one = median(results[0].rate);
  for (const r of results) {
    line({
      figure: `worker scaling: ${runs.toLocaleString('en')} queued runs of 10 steps, concurrency 16 per process`,
      database: waymark.MARIADB_DB,
      system: `waymark, ${r.workers} worker process${r.workers > 1 ? 'es' : ''}`,
      result: `${withRange(r.rate)} runs/s; ${r.executed.toLocaleString('en')} step bodies, ${r.duplicates} duplicated`,
      statements: cpuNote(r, runs),
      ratio: `${(median(r.rate) / one).toFixed(2)}× 1 worker`,
    });
    verdict(
      r.duplicates === 0,
      `no step executed twice with ${r.workers} workers: ${r.duplicates}`,
    );
  }
  const four = results.find((r) => r.workers === 4);
  verdict(
    four ? median(four.rate) / one >= 2.5 : undefined,
    four
      ? `4 workers ≥ 2.5× one on MariaDB: ${(median(four.rate) / one).toFixed(2)}×`
      : '4 workers ≥ 2.5× one on MariaDB (skipped in --quick)',
  );
}

async function concurrencySection(dir: string): Promise<void> {
  const results = measureConcurrency(dir, quick ? 1 : 3);
  const floorOf = (label: string, db: string) =>
    results.find((r) => r.label === label && r.db === db);
  for (const r of results) {
    const one = floorOf(ONE_COMMIT_FLOOR, r.db);
    const group = floorOf(GROUP_COMMIT_FLOOR, r.db);
    const at64 = rateAt(r, 64);
    line({
      figure: `concurrency: C runs × 50 steps at once, steps/s at C = ${CONCURRENCY.join(' · ')}`,
      database: r.db,
      system: r.label,
      result: CONCURRENCY.map((c) => Math.round(rateAt(r, c)).toLocaleString('en')).join(' · '),
      ratio:
        one && group
          ? `C=64: ${(at64 / rateAt(one, 64)).toFixed(2)}× one-commit floor, ${(at64 / rateAt(group, 64)).toFixed(2)}× group-commit floor (of the medians)`
          : '',
    });
  }
  // The targets' ratios at C = 64: waymark and both floors, in turn, block by block
  // (pairedRatio.ts); the medians above were measured minutes apart.
  for (const r of results.filter((x) => x.label === 'waymark')) {
    if (!floorOf(ONE_COMMIT_FLOOR, r.db) || !floorOf(GROUP_COMMIT_FLOOR, r.db)) continue;
    const key = (label: string) => systemKey({ label, db: r.db });
    const blocks = await pairedRates(
      dir,
      key(r.label),
      [key(ONE_COMMIT_FLOOR), key(GROUP_COMMIT_FLOOR)],
      PAIRED_C64_BLOCKS,
      64,
      PAIRED_C64_PASSES,
    );
    const toOne = median(blocks.map(([w, one]) => w / one));
    const toGroup = median(blocks.map(([w, , group]) => w / group));
    const rates = [0, 1, 2].map((i) => Math.round(median(blocks.map((b) => b[i]))));
    line({
      figure: `concurrency, C = 64 in turn: ${PAIRED_C64_BLOCKS} blocks of ${PAIRED_C64_PASSES} passes each (waymark · one-commit floor · group-commit floor, steps/s)`,
      database: r.db,
      system: r.label,
      result: rates.map((x) => x.toLocaleString('en')).join(' · '),
      ratio: `${toOne.toFixed(2)}× one-commit floor, ${toGroup.toFixed(2)}× group-commit floor (paired)`,
    });
    verdict(
      toOne >= 3,
      `C=64 with group commit ≥ 3× the one-commit floor on ${r.db}: ${toOne.toFixed(2)}× (paired)`,
    );
    verdicts.push(
      `- REPORTED (the moonshot): C=64 ≥ 0.5× the group-commit floor on ${r.db}: ${toGroup.toFixed(2)}× (paired)`,
    );
    console.error(`  concurrency: paired blocks on ${r.db} done`);
  }
}

/** The databases a worker fleet drains, each made empty before each measurement. */
function fleetDatabases(dir: string) {
  let n = 0;
  return [
    {
      db: waymark.SQLITE_FULL,
      fresh: async () => `sqlite:${join(dir, `fleet-${n++}.db`)}?synchronous=full`,
    },
    {
      db: waymark.MARIADB_DB,
      fresh: async () => (await databases.recreateMariaDb(), databases.MARIADB_URL),
    },
    {
      db: waymark.POSTGRES_DB,
      fresh: async () => (
        await databases.recreatePostgres(databases.POSTGRES.database),
        databases.POSTGRES_URL
      ),
    },
  ];
}

/** Two worker processes drain queued one-step runs, group commit on and off in turn. */
async function fleetSection(dir: string): Promise<void> {
  const runs = quick ? 2_000 : 10_000;
  const rounds = quick ? 1 : 3;
  for (const { db, fresh } of fleetDatabases(dir)) {
    const rates = { on: [] as number[], off: [] as number[] };
    let duplicates = 0;
    for (let round = 0; round < rounds; round++) {
      for (const mode of ['on', 'off'] as const) {
        const [r] = await measureScaling({
          workerCounts: [2],
          runs,
          rounds: 1,
          url: await fresh(),
          stepsPerRun: 1,
          groupCommit: mode === 'on',
        });
        rates[mode].push(...r.rate);
        duplicates += r.duplicates;
      }
    }
    for (const mode of ['on', 'off'] as const) {
      line({
        figure: `worker fleet: 2 processes (concurrency 16 each) drain ${runs.toLocaleString('en')} queued one-step runs`,
        database: db,
        system: `waymark, group commit ${mode}`,
        result: `${withRange(rates[mode])} runs/s`,
        ratio: mode === 'on' ? `${(median(rates.on) / median(rates.off)).toFixed(2)}× off` : '',
      });
    }
    verdict(duplicates === 0, `no step executed twice by the fleet on ${db}: ${duplicates}`);
  }
}

async function memorySection(): Promise<void> {
  const m = await measureMemory(quick);
  line({
    figure: `memory: worker RSS idle · with ${m.runs.toLocaleString('en')} runs waiting for a signal`,
    database: 'SQLite file',
    system: 'waymark worker',
    result: `${m.idleMb.toFixed(1)} MB · ${m.loadedMb.toFixed(1)} MB (+${(m.loadedMb - m.idleMb).toFixed(1)} MB)`,
  });
  verdict(
    m.loadedMb - m.idleMb <= 10,
    `worker RSS with ${m.runs.toLocaleString('en')} waiting runs within 10 MB of idle: +${(m.loadedMb - m.idleMb).toFixed(1)} MB`,
  );
}

/** Counts waymark's statements through its TypeORM logger too, and compares with the driver count. */
async function auditSection(dir: string): Promise<void> {
  const steps = 100;
  for (const { db, database } of waymark.waymarkDatabases(join(dir, 'audit-'))) {
    let logged = 0;
    const runtime = await Waymark.create({
      database: waymark.withQueryLogger(database, () => logged++),
      logger: waymark.quiet,
    });
    try {
      await runtime.run(Sequence, 'run', [`audit-warm-${Date.now()}`, 1]);
      logged = 0;
      const before = snapshot();
      startTexts();
      await runtime.run(Sequence, 'run', [`audit-${Date.now()}`, steps]);
      const counted = since(before);
      const texts = [...stopTexts().entries()].sort((a, b) => b[1] - a[1]);
      line({
        figure: `statements of one ${steps}-step run: TypeORM logger · driver`,
        database: db,
        system: 'waymark',
        result: `${logged} · ${total(counted)}`,
        statements: texts.map(([sql, n]) => `${n}× ${sql.slice(0, 48)}…`).join('; '),
      });
    } finally {
      await runtime.close();
    }
  }
}

async function main(): Promise<void> {
  installCounters();
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-'));
  const servers = await databases.serverVersions();
  const probe = new Database(':memory:');
  const sqlite = String(probe.prepare('SELECT sqlite_version() AS v').pluck().get());
  probe.close();
  const head = header(servers, sqlite);
  console.error(head.join('\n'));
  await databases.recreateMariaDb();
  await databases.recreatePostgres(databases.POSTGRES.database);
  try {
    const run = async (section: Section, body: () => Promise<void>): Promise<void> => {
      if (!sections.has(section)) return;
      const t = performance.now();
      currentSection = section;
      console.error(`${section}…`);
      try {
        await body();
      } catch (error) {
        console.error(error);
        line({ figure: `${section}: FAILED`, result: (error as Error).message });
        failedSections.push(section);
      }
      const took = `${((performance.now() - t) / 1000).toFixed(0)} s`;
      console.error(`${section}: ${took}`);
      loads.push(`${section} ${took}, load ${loadavg()[0].toFixed(1)}`);
    };
    await run('steps', () => perStepSection(dir));
    await run('growth', () => growthSection(dir));
    await run('resume', () => resumeSection(dir));
    await run('bytes', () => bytesSection(dir));
    await run('audit', () => auditSection(dir));
    await run('scaling', () => scalingSection());
    await run('memory', () => memorySection());
    await run('concurrency', () => concurrencySection(dir));
    await run('fleet', () => fleetSection(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const f of floorRatios) {
    // Issue 24 asks 1.2× (issue 7 asked 1.3×).
    const text = `waymark within 1.2× of the one-INSERT floor on ${f.db}: ${f.ratio.toFixed(2)}×`;
    // SQLite NORMAL is reported, not a target: its floor (≈ 60 µs) is small enough that
    // waymark's own JavaScript per step shows.
    if (f.db === waymark.SQLITE_NORMAL) verdicts.push(`- REPORTED (not a target): ${text}`);
    else verdict(f.ratio <= 1.2, text);
  }
  for (const w of writesPerStep)
    verdict(
      Math.abs(w.writes - 1) < 0.01,
      `one SQL write per completed step on ${w.db}: ${w.writes.toFixed(2)} writes (${w.total.toFixed(2)} statements in all)`,
    );

  const cols: Array<keyof Line> = [
    'figure',
    'database',
    'system',
    'result',
    'statements',
    'ratio',
    'command',
  ];
  const titles = [
    'figure',
    'database (durability)',
    'system',
    'result',
    'SQL statements (per completed step, or as stated)',
    'ratio',
    'command',
  ];
  const out = [
    ...head,
    `| ${titles.join(' | ')} |`,
    `| ${titles.map(() => '---').join(' | ')} |`,
    ...lines.map((l) => `| ${cols.map((c) => l[c].replace(/\|/g, '\\|')).join(' | ')} |`),
    '',
    'Targets (issues 7 and 24):',
    ...verdicts,
    '',
    `Sections (1-minute load average at each one's end; 2 cores, the bench itself keeps about 2 busy): ${loads.join('; ')}.`,
    `Load average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; took ${((performance.now() - started) / 1000).toFixed(0)} s.`,
  ];
  console.log(out.join('\n'));
}

void main().then(
  // The report is printed whole either way; a section that failed makes the command fail.
  () => process.exit(failedSections.length > 0 ? 1 : 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

/** Measures one system in a child process (see perStepChild.ts). */
function runChild(dir: string, key: string, ns: number[]): ChildResult {
  const out = execFileSync(
    process.execPath,
    ['-r', '@swc-node/register', join(BENCH_DIR, 'perStepChild.ts'), dir, key, ...ns.map(String)],
    { cwd: join(BENCH_DIR, '..'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`the child measuring "${key}" printed no result`);
  return JSON.parse(line.slice('RESULT '.length)) as ChildResult;
}
