/**
 * Replicated databases on this machine (issue 17): steps per second on a 3-node Galera
 * cluster against one MariaDB with the same settings, on PostgreSQL with a synchronous
 * standby against the primary alone, and what a failover costs: the stall after a Galera
 * node is SIGKILLed, the time from a killed primary to the first step committed on the
 * promoted standby, and, with asynchronous replication, the acknowledged checkpoints lost.
 *
 *   npm run bench:cluster                 # 3 rounds of each (≈ 4 minutes)
 *   npm run bench:cluster -- --rounds=1
 *   npm run bench:cluster -- --only=throughput   (or --only=failover)
 *
 * `scripts/cluster.sh run` around it starts nothing by itself but stops every server at the
 * end. Prints one markdown section.
 */
import 'reflect-metadata';
import { execSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { Client } from 'pg';
import { createTestDatabase } from '../test/support/databases';
import type { OrderPlan } from '../test/cluster/fixtures/ClusterOrder';
import {
  actedAt,
  cluster,
  createGaleraDatabase,
  galeraUrl,
  PG_PRIMARY_PORT,
  postgresUrl,
  SINGLE_PORT,
} from '../test/cluster/support/clusterScript';
import { countFleet } from '../test/cluster/support/FleetChecks';
import { firstCommitAfter } from '../test/cluster/support/figures';
import {
  runFleet,
  stopFleet,
  type Disruption,
  type FleetSpec,
} from '../test/cluster/support/FleetRun';
import { median, withRange } from './lib/stats';
import { runChild } from '../test/support/runChild';

const roundsArg = process.argv.find((a) => a.startsWith('--rounds='));
const ROUNDS = roundsArg ? Number(roundsArg.slice('--rounds='.length)) : 3;
const onlyArg = process.argv.find((a) => a.startsWith('--only='));
const ONLY = onlyArg ? onlyArg.slice('--only='.length) : undefined;
const WORKERS = 3;
const THROUGHPUT_RUNS = 300;
const FAILOVER_RUNS = 150;
/** Checkpoint throughput: steps that do nothing but return. */
const PLAN: OrderPlan = { stages: 4, stageMs: 0 };
const WORKER_OPTIONS = {
  concurrency: 8,
  pollInterval: '50ms',
  leaseDuration: '10s',
  storeRetryTimeout: '60s',
} as const;

interface Lines {
  push(...lines: string[]): void;
}

async function main(): Promise<void> {
  const out: string[] = [];
  const effectsDb = await createTestDatabase('mariadb');
  const base = { effectsUrl: effectsDb.url, plan: () => PLAN, workerOptions: WORKER_OPTIONS };
  try {
    out.push(...header());
    if (ONLY !== 'failover') await throughput(out, base);
    if (ONLY !== 'throughput') await failovers(out, base);
  } finally {
    await effectsDb.drop();
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

type Base = Pick<FleetSpec, 'effectsUrl' | 'plan' | 'workerOptions'>;

/** Checkpoints per second of one fleet run, over the time from the barrier to the last run. */
async function stepsPerSecond(spec: FleetSpec): Promise<number> {
  const evidence = await runFleet(spec);
  await stopFleet(evidence.workers);
  if (evidence.unfinished.length > 0)
    throw new Error(`${evidence.unfinished.length} runs unfinished`);
  return countFleet(evidence).bodies / ((evidence.doneAt - evidence.goAt) / 1000);
}

async function throughput(out: Lines, base: Base): Promise<void> {
  await cluster('galera', 'up');
  await cluster('single', 'up');
  const galera: number[] = [];
  const single: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const onGalera = await createGaleraDatabase();
    galera.push(
      await stepsPerSecond({
        ...base,
        workerUrls: [
          galeraUrl(onGalera.name, [1, 2, 3]),
          galeraUrl(onGalera.name, [2, 3, 1]),
          galeraUrl(onGalera.name, [3, 1, 2]),
        ],
        producerUrl: galeraUrl(onGalera.name, [1, 2, 3]),
        runs: THROUGHPUT_RUNS,
        deadlineMs: 120_000,
      }),
    );
    await onGalera.drop();
    const url = `mysql://root@127.0.0.1:${SINGLE_PORT}/test`;
    execSync(
      `mariadb -h127.0.0.1 -P${SINGLE_PORT} -uroot -e 'DROP DATABASE IF EXISTS test; CREATE DATABASE test'`,
    );
    single.push(
      await stepsPerSecond({
        ...base,
        workerUrls: Array(WORKERS).fill(url),
        producerUrl: url,
        runs: THROUGHPUT_RUNS,
        deadlineMs: 120_000,
      }),
    );
  }
  await cluster('single', 'stop');

  const pgSync: number[] = [];
  const pgAlone: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await cluster('postgres', 'up', 'sync');
    pgSync.push(
      await stepsPerSecond({
        ...base,
        workerUrls: Array(WORKERS).fill(postgresUrl()),
        producerUrl: postgresUrl(),
        runs: THROUGHPUT_RUNS,
        deadlineMs: 120_000,
      }),
    );
    await cluster('postgres', 'up', 'none');
    const alone = `postgres://postgres@127.0.0.1:${PG_PRIMARY_PORT}/test`;
    pgAlone.push(
      await stepsPerSecond({
        ...base,
        workerUrls: Array(WORKERS).fill(alone),
        producerUrl: alone,
        runs: THROUGHPUT_RUNS,
        deadlineMs: 120_000,
      }),
    );
  }
  await cluster('postgres', 'stop');

  out.push(
    '',
    `### Checkpoints per second, ${WORKERS} worker processes × concurrency 8, ${THROUGHPUT_RUNS} runs of 5 steps`,
    '',
    '| database | steps/s, median (min–max) | against one node |',
    '| --- | --- | --- |',
    `| MariaDB, one server (same settings, no Galera) | ${withRange(single)} | 1 |`,
    `| Galera, 3 nodes, one worker per node | ${withRange(galera)} | ${(median(galera) / median(single)).toFixed(2)}× |`,
    `| PostgreSQL primary alone | ${withRange(pgAlone)} | 1 |`,
    `| PostgreSQL primary + synchronous standby | ${withRange(pgSync)} | ${(median(pgSync) / median(pgAlone)).toFixed(2)}× |`,
  );
}

async function failovers(out: Lines, base: Base): Promise<void> {
  const galera = {
    stall: [] as number[],
    orphan: [] as number[],
    lost: 0,
    dup: 0,
    reRuns: 0,
    inFlight: 0,
  };
  for (let round = 0; round < ROUNDS; round++) {
    await cluster('galera', 'up');
    const db = await createGaleraDatabase();
    const evidence = await runFleet({
      ...base,
      workerUrls: [
        galeraUrl(db.name, [1, 2, 3]),
        galeraUrl(db.name, [2, 3, 1]),
        galeraUrl(db.name, [3, 1, 2]),
      ],
      producerUrl: galeraUrl(db.name, [3, 1, 2]),
      runs: FAILOVER_RUNS,
      disruption: { when: (n) => n >= FAILOVER_RUNS, strike: () => actedAt('galera', 'kill', '2') },
      deadlineMs: 120_000,
    });
    await stopFleet(evidence.workers);
    const counts = countFleet(evidence);
    const killAt = evidence.killAt!;
    galera.stall.push(firstCommitAfter(evidence, killAt) - killAt);
    galera.orphan.push(firstCommitAfter(evidence, killAt, 1) - killAt);
    galera.lost +=
      counts.lostSteps.length + counts.lostAcknowledged.length + evidence.unfinished.length;
    galera.reRuns += counts.reRuns.length;
    galera.inFlight += counts.inFlightAtKill;
    await db.drop();
  }
  await cluster('galera', 'stop');

  const pg = { sync: new PgFailover(), async: new PgFailover() };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['sync', 'async'] as const) {
      await cluster('postgres', 'up', mode);
      await pg[mode].round(base);
    }
  }
  await cluster('postgres', 'stop');

  out.push(
    '',
    `### Failover, ${ROUNDS} rounds of ${FAILOVER_RUNS} runs × 5 steps, killed after ${FAILOVER_RUNS} checkpoints`,
    '',
    '| scenario | kill → first step committed after it | lost checkpoints | steps run again / in flight at the kill |',
    '| --- | --- | --- | --- |',
    `| Galera: SIGKILL of node 2, any worker | ${withRange(galera.stall)} ms | ${galera.lost} | ${galera.reRuns} / ${galera.inFlight} |`,
    `| Galera: the worker that was on node 2 | ${withRange(galera.orphan)} ms | | |`,
    pg.sync.row('PostgreSQL, synchronous standby promoted'),
    pg.async.row('PostgreSQL, asynchronous standby promoted'),
    '',
    `Asynchronous replication: acknowledged checkpoints lost per kill ${pg.async.lostPerRound.join(', ')} ` +
      `(step records missing from completed histories: ${pg.async.holesPerRound.join(', ')}); ` +
      `runs left unfinished ${pg.async.unfinishedPerRound.join(', ')}. The standby's flush lag under this ` +
      `load (${withRange(pg.async.stepsPerSecond)} steps/s), sampled every 50 ms until the kill: median ` +
      `${median(pg.async.flushLagMs).toFixed(2)} ms, max ${Math.max(...pg.async.flushLagMs).toFixed(2)} ms ` +
      `(${pg.async.flushLagMs.length} samples). A primary that dies loses the checkpoints acknowledged in that ` +
      `last window: about ${((median(pg.async.stepsPerSecond) * Math.max(...pg.async.flushLagMs)) / 1000).toFixed(1)} ` +
      'steps at the largest lag seen. With the synchronous standby the window is zero: a commit is ' +
      'acknowledged only once the standby has flushed it.',
  );
}

/** Kill → promote rounds on one replication mode. */
class PgFailover {
  readonly promote: number[] = [];
  readonly firstCommit: number[] = [];
  readonly lostPerRound: number[] = [];
  /** Step records missing from completed runs' histories (a hole where a lost one was). */
  readonly holesPerRound: number[] = [];
  readonly unfinishedPerRound: number[] = [];
  /** The standby's flush lag (ms), sampled under load until the kill. */
  readonly flushLagMs: number[] = [];
  /** Checkpoints per second before the kill. */
  readonly stepsPerSecond: number[] = [];
  private reRuns = 0;
  private inFlight = 0;

  async round(base: Base): Promise<void> {
    let promotedAt = 0;
    const sampler = new LagSampler();
    const disruption: Disruption = {
      when: (committed) => {
        if (committed > 0) sampler.start();
        return committed >= FAILOVER_RUNS;
      },
      strike: async () => {
        this.flushLagMs.push(...(await sampler.stop()));
        return actedAt('postgres', 'kill-primary');
      },
      recover: async () => {
        promotedAt = await actedAt('postgres', 'promote');
      },
    };
    const evidence = await runFleet({
      ...base,
      workerUrls: Array(WORKERS).fill(postgresUrl()),
      producerUrl: postgresUrl(),
      runs: FAILOVER_RUNS,
      disruption,
      deadlineMs: 60_000,
    });
    await stopFleet(evidence.workers);
    const counts = countFleet(evidence);
    const killAt = evidence.killAt!;
    const beforeKill = evidence.events
      .flat()
      .filter((e) => e.name === 'step.completed' && e.at <= killAt);
    this.stepsPerSecond.push(beforeKill.length / ((killAt - evidence.goAt) / 1000));
    this.promote.push(promotedAt - killAt);
    this.firstCommit.push(firstCommitAfter(evidence, killAt) - killAt);
    this.lostPerRound.push(counts.lostAcknowledged.length);
    this.holesPerRound.push(counts.missingSteps);
    this.unfinishedPerRound.push(evidence.unfinished.length);
    this.reRuns += counts.reRuns.length;
    this.inFlight += counts.inFlightAtKill;
  }

  row(name: string): string {
    return (
      `| ${name} (promotion done after ${withRange(this.promote)} ms) | ${withRange(this.firstCommit)} ms | ` +
      `${this.lostPerRound.reduce((a, b) => a + b, 0)} | ${this.reRuns} / ${this.inFlight} |`
    );
  }
}

/**
 * Samples, every 50 ms, how far the standby's flushed WAL is behind the primary in time
 * (`pg_stat_replication.flush_lag`): with asynchronous replication, what a crash of the
 * primary at that moment loses.
 */
class LagSampler {
  private readonly samples: number[] = [];
  private loop: Promise<void> | undefined;
  private stopped = false;

  start(): void {
    this.loop ??= this.sample();
  }

  async stop(): Promise<number[]> {
    this.stopped = true;
    await this.loop;
    return this.samples;
  }

  private async sample(): Promise<void> {
    const client = new Client({
      host: '127.0.0.1',
      port: PG_PRIMARY_PORT,
      user: 'postgres',
      database: 'postgres',
    });
    await client.connect();
    try {
      while (!this.stopped) {
        const { rows } = await client.query<{ ms: string | null }>(
          'SELECT EXTRACT(EPOCH FROM flush_lag) * 1000 AS ms FROM pg_stat_replication LIMIT 1',
        );
        // NULL: the standby has caught up and nothing was written since.
        this.samples.push(Number(rows[0]?.ms ?? 0));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await client.end();
    }
  }
}

function header(): string[] {
  const version = (command: string): string => {
    try {
      return execSync(command, { encoding: 'utf8' }).trim().split('\n')[0];
    } catch {
      return 'unknown';
    }
  };
  return [
    '## Replicated databases: `npm run bench:cluster`',
    '',
    `- date: ${new Date().toISOString()}; rounds: ${ROUNDS}`,
    `- machine: ${cpus()[0]?.model ?? '?'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB; load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    `- servers: ${version('mariadbd --version')}; Galera ${version("dpkg-query -W -f '${Version}' galera-4")}; ${version('"$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/postgres" --version')}`,
    "- all servers on this one machine (scripts/cluster.sh: 32 MB buffer pools, fsync on); the effect ledger on the machine's own MariaDB",
  ];
}

runChild(main, { exit: 'now' });
