import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { waymarkMigrations } from 'waymark/migrations';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { CliOrders } from './fixtures/CliOrders';
import { waymark, WorkerCli, type CliResult } from './support/waymarkCli';

const FIXTURE = 'test/cli/fixtures/CliOrders.ts';
const DOWN = 'mysql://root:secret@127.0.0.1:1/test';
const MIGRATIONS = waymarkMigrations.map((M) => new M().name!);

/** stderr as the lines the CLI printed. */
const errorLines = (result: CliResult): string[] => result.stderr.trim().split('\n');
const json = <T>(result: CliResult): T => JSON.parse(result.stdout) as T;

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'waymark-cli-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('waymark CLI: bad input, before any database is used', () => {
  it('needs --db or WAYMARK_DATABASE_URL, and explains a malformed URL (exit 2)', async () => {
    const [missing, fromEnv, scheme, malformed] = await Promise.all([
      waymark(['runs']),
      waymark(['runs'], { env: { WAYMARK_DATABASE_URL: 'postgres:/nohost' } }),
      waymark(['runs'], { db: 'oracle://db/app' }),
      waymark(['show', 'po-1'], { db: 'mysql://root:hunter2@/app' }),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no database: pass --db <url> or set WAYMARK_DATABASE_URL');
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('database URL "postgres:***" must start with postgres://');
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toContain('unsupported scheme "oracle:"');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('database URL "mysql://root:***@/app" must name a host');
    expect(malformed.stderr).not.toContain('hunter2');
  });

  it('never prints a password, however the URL is mangled', async () => {
    const results = await Promise.all(
      [
        'postgres:/postgres:Secret@127.0.0.1/test',
        'postgres:postgres:Secret@127.0.0.1/test',
        'mysql://root:Secret%zz@127.0.0.1:1/test',
        'mysql://root:Secret@ss@127.0.0.1:1/test',
        'postgres://postgres:Secret@127.0.0.1:1/test?sslmode=require&pasword=Secret',
      ].map((db) => waymark(['runs'], { db })),
    );
    const [slash, noSlashes, percent, at, unknown] = results.map(errorLines);
    for (const result of results) expect(result.stderr).not.toMatch(/Secret|ss@/);
    expect(slash).toEqual([
      'error: database URL "postgres:***@127.0.0.1/test" must start with postgres:// (two slashes after "postgres:")',
    ]);
    expect(noSlashes).toEqual(slash);
    expect(percent[0]).toMatch(
      /^error: the password in database URL "mysql:\/\/root:\*\*\*@127.0.0.1:1\/test" has a malformed percent-encoding/,
    );
    expect(at).toEqual([
      'error: database mysql://root:***@127.0.0.1:1/test is unavailable: connect ECONNREFUSED 127.0.0.1:1',
    ]);
    expect(unknown[0]).toContain('?sslmode=require&pasword=***" has unknown parameter "pasword"');
    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 3, 2]);
  });

  it('names a database that is down, password redacted, in one line (exit 3)', async () => {
    const results = await Promise.all([
      waymark(['runs'], { db: DOWN }),
      waymark(['migrate'], { env: { WAYMARK_DATABASE_URL: DOWN } }),
    ]);
    for (const result of results) {
      expect(result.code).toBe(3);
      expect(errorLines(result)).toEqual([
        'error: database mysql://root:***@127.0.0.1:1/test is unavailable: connect ECONNREFUSED 127.0.0.1:1',
      ]);
    }
  });

  it('rejects malformed JSON with its position before touching the database (exit 2)', async () => {
    const broken = join(scratch, 'broken.json');
    writeFileSync(broken, '{\n  "receiptId": "R-1"\n  "by": "dana"\n}');
    const [inline, file, unreadable, both, none] = await Promise.all([
      waymark(['signal', 'po-1', 'approval', '{"approved": true,}'], { db: DOWN }),
      waymark(['resolve', 'po-1', '--file', broken], { db: DOWN }),
      waymark(['signal', 'po-1', 'approval', '--file', join(scratch, 'nope.json')], { db: DOWN }),
      waymark(['resolve', 'po-1', '{}', '--file', broken], { db: DOWN }),
      waymark(['resolve', 'po-1'], { db: DOWN }),
    ]);
    expect(inline.code).toBe(2);
    expect(inline.stderr).toContain(
      "the payload is not valid JSON: unexpected '}' at position 18 (line 1, column 19)",
    );
    expect(file.code).toBe(2);
    expect(file.stderr).toContain(
      `${broken} is not valid JSON: unexpected '"' at position 25 (line 3, column 3)`,
    );
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain('cannot read');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('inline or with --file, not both');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give the step outcome as JSON');
  });

  it('reports bad options and unknown commands as usage errors; --help is not one', async () => {
    const results = await Promise.all([
      waymark(['runs', '--limit', '0'], { db: DOWN }),
      waymark(['runs', '--status', 'failed,bogus'], { db: DOWN }),
      waymark(['runs', '--since', 'yesterday'], { db: DOWN }),
      waymark(['fork', 'po-1', '--from', 'three'], { db: DOWN }),
      waymark(['frobnicate']),
    ]);
    for (const result of results) expect(result.code).toBe(2);
    expect(results.map((r) => errorLines(r)[0])).toEqual([
      "error: option '--limit <n>' argument '0' is invalid. expected an integer from 1 to 1000",
      "error: option '--status <status>' argument 'failed,bogus' is invalid. unknown status " +
        '"bogus"; expected one of pending, running, waiting, needs_attention, completed, failed, cancelled',
      "error: option '--since <when>' argument 'yesterday' is invalid. expected a duration back " +
        'from now (2h, 30m, 7d) or an ISO date (2026-05-01T12:00:00Z)',
      "error: option '--from <seq>' argument 'three' is invalid. expected an integer from 0 to 9007199254740991",
      "error: unknown command 'frobnicate'",
    ]);
    const help = await waymark(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['runs', 'show', 'signal', 'retry', 'resolve', 'cancel', 'fork']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
  });

  it('check prints the workflows and steps of a module with their policies (exit 0)', async () => {
    const result = await waymark(['check', FIXTURE]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toContain('4 workflows');
    expect(result.stdout).toMatch(/^cli-approval\s+CliOrders\.approve\s+2\s+from its arguments$/m);
    expect(lines).toContain('5 steps');
    expect(result.stdout).toMatch(
      /^CliOrders\.submit\s+submit\s+30s\s+none \(1 attempt\)\s+key\(\), global\s+at most once$/m,
    );
    expect(result.stdout).toMatch(
      /^CliOrders\.book\s+book-carrier\s+—\s+2 attempts, fixed 10ms, then park\s+runId:seq\s+—$/m,
    );
    expect(lines).toContain('no problems found');
  });

  it('check lists every problem — a decorator that threw while loading, bad policies (exit 1)', async () => {
    const result = await waymark([
      'check',
      'test/cli/fixtures/BadPolicies.ts',
      'test/cli/fixtures/ThrowsOnLoad.ts',
      'test/cli/fixtures/Missing.ts',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^cli-bad-policies\s+BadPolicies\.run\s+—\s+random UUID$/m);
    expect(errorLines(result)).toEqual([
      'error: test/cli/fixtures/ThrowsOnLoad.ts: @Step on ThrowsOnLoad.charge: onUnknown only applies with atMostOnce: true',
      expect.stringMatching(/^error: module test\/cli\/fixtures\/Missing\.ts not found/),
      "error: @Idempotent on BadPolicies.send: scope 'global' needs a key function, e.g. key: (order) => order.id",
      'error: @Retry on BadPolicies.notAStep needs @Step on the same method',
      'error: check found 4 problems',
    ]);
  });
});

describe.each<Backend>(['sqlite-file', 'mariadb'])('waymark CLI on %s', (backend) => {
  let db: TestDatabase;
  let runtime: WaymarkRuntime;
  const s = `${backend === 'mariadb' ? 'm' : 's'}${Date.now().toString(36)}`;
  const ids = {
    approval: `approval-${s}`,
    charge: `charge-${s}`,
    resolve: `ship-${s}a`,
    retry: `ship-${s}b`,
    cancel: `ship-${s}c`,
    pipeline: `pipeline-${s}`,
    fork: `pipeline-${s}-retake`,
  };
  const cli = (...args: string[]): Promise<CliResult> => waymark(args, { db: db.url });
  const describeRun = (runId: string) => runtime.handle(runId).describe();

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    runtime = await Waymark.create({ database: db.url });
    // The steps fail in this process: the CLI_FIXTURE_FIXED "deployment" is the worker's.
    await runtime.start(CliOrders, 'approve', [s]);
    await expect(runtime.run(CliOrders, 'charge', [s])).rejects.toThrow('card declined');
    for (const suffix of ['a', 'b', 'c']) {
      await expect(runtime.run(CliOrders, 'ship', [`${s}${suffix}`])).rejects.toThrow();
    }
    await runtime.run(CliOrders, 'pipeline', [s]);
    for (let i = 0; (await describeRun(ids.approval)).status !== 'waiting'; i++) {
      if (i > 200) throw new Error('the approval run never started waiting');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  afterAll(async () => {
    await runtime?.close({ grace: 0 });
    await db?.drop();
  });

  it('refuses a database without waymark tables until `migrate` creates them (exit 3)', async () => {
    const fresh = await createTestDatabase(backend);
    try {
      const needsMigrate =
        backend === 'mariadb'
          ? 'has no waymark tables; run `waymark migrate` first'
          : 'does not exist; create it with `waymark migrate`';
      const [before, dryRun] = await Promise.all([
        waymark(['runs'], { db: fresh.url }),
        waymark(['migrate', '--dry-run'], { db: fresh.url }),
      ]);
      expect(before.code).toBe(3);
      expect(before.stderr).toContain(needsMigrate);
      expect(dryRun.code).toBe(0);
      expect(dryRun.stdout.trim().split('\n')).toEqual(MIGRATIONS.map((n) => `pending  ${n}`));

      const migrate = await waymark(['migrate'], { db: fresh.url });
      expect(migrate.code).toBe(0);
      expect(migrate.stdout.trim().split('\n')).toEqual(MIGRATIONS.map((n) => `applied  ${n}`));

      const again = await waymark(['migrate'], { db: fresh.url });
      expect(again).toMatchObject({
        code: 0,
        stdout: 'nothing to apply: the schema is up to date\n',
      });
    } finally {
      await fresh.drop();
    }
  });

  it('runs: a table with each run’s status and current step; filters, paging and --json', async () => {
    const [table, active, ships, first] = await Promise.all([
      cli('runs'),
      cli(
        'runs',
        '--status',
        'failed,needs_attention',
        '--status',
        'waiting',
        '--since',
        '2000-01-01',
        '--json',
      ),
      cli('runs', '--workflow', 'cli-ship', '--since', '1h', '--json'),
      cli('runs', '--limit', '4'),
    ]);
    expect(table.code).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^RUN\s+WORKFLOW\s+VERSION\s+STATUS\s+STARTED\s+UPDATED\s+STEP$/);
    const row = (id: string): string => lines.find((l) => l.startsWith(`${id} `)) ?? '';
    const time = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ';
    expect(row(ids.approval)).toMatch(
      new RegExp(
        `^\\S+\\s+cli-approval\\s+2\\s+waiting\\s+${time}\\s+${time}\\s+#1 signal:approval started$`,
      ),
    );
    expect(row(ids.charge)).toMatch(/\s+cli-charge\s+—\s+failed\s+.*#1 submit failed$/);
    expect(row(ids.resolve)).toMatch(/\s+needs_attention\s+.*#1 book-carrier parked$/);
    expect(row(ids.pipeline)).toMatch(/\s+completed\s+.*\s—$/);
    expect(lines.filter((l) => /^(approval|charge|ship|pipeline)-/.test(l))).toHaveLength(6);
    expect(table.stdout).not.toContain('next cursor');

    type Listed = {
      runs: Array<{ runId: string; status: string; currentStep: unknown; createdAt: string }>;
      nextCursor: string | null;
    };
    const listed = json<Listed>(active);
    expect(listed.runs.map((r) => r.runId).sort()).toEqual(
      [ids.approval, ids.charge, ids.resolve, ids.retry, ids.cancel].sort(),
    );
    expect(listed.nextCursor).toBeNull();
    expect(listed.runs.find((r) => r.runId === ids.charge)).toEqual(
      expect.objectContaining({
        status: 'failed',
        currentStep: { seq: 1, name: 'submit', status: 'failed' },
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
    );
    expect(
      json<Listed>(ships)
        .runs.map((r) => r.runId)
        .sort(),
    ).toEqual([ids.resolve, ids.retry, ids.cancel].sort());

    const cursor = /^next cursor: (\S+)$/m.exec(first.stdout)?.[1];
    expect(
      first.stdout.split('\n').filter((l) => /^(approval|charge|ship|pipeline)-/.test(l)),
    ).toHaveLength(4);
    expect(cursor).toBeDefined();
    const second = json<Listed>(await cli('runs', '--limit', '4', '--cursor', cursor!, '--json'));
    expect(second.runs).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
    for (const run of second.runs) expect(first.stdout).not.toContain(`${run.runId} `);
  });

  it('show: the run, what it waits for and until when, and its step timeline', async () => {
    const [approval, parked, failed, unknown] = await Promise.all([
      cli('show', ids.approval),
      cli('show', ids.resolve, '--json'),
      cli('show', ids.charge),
      cli('show', 'no-such-run'),
    ]);
    expect(approval.code).toBe(0);
    expect(approval.stdout).toMatch(/^status\s+waiting$/m);
    expect(approval.stdout).toMatch(
      /^waiting for\s+signal "approval", or its timeout \(due in (6d23h|7d)\)$/m,
    );
    expect(approval.stdout).toMatch(/^deadline\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/m);
    expect(approval.stdout).toMatch(
      /^SEQ\s+STEP\s+STATUS\s+ATTEMPTS\s+DURATION\s+IDEMPOTENCY KEY\s+OUTPUT\s+ERROR$/m,
    );
    expect(approval.stdout).toMatch(new RegExp(`^arguments\\s+\\["${s}"\\]$`, 'm'));
    expect(approval.stdout).toMatch(
      new RegExp(
        `^0\\s+draft\\s+completed\\s+1\\s+\\d+ms\\s+${ids.approval}:0\\s+"draft ${s}"$`,
        'm',
      ),
    );
    expect(approval.stdout).toMatch(/^1\s+signal:approval\s+started\s+1\s+—\s+—$/m);
    expect(approval.stdout).toContain('their own from @Idempotent({ key }), else the default');

    expect(parked.code).toBe(0);
    expect(json<Record<string, unknown>>(parked)).toMatchObject({
      run: {
        runId: ids.resolve,
        args: [`${s}a`],
        status: 'needs_attention',
        parkedSeq: 1,
        parkedReason: expect.stringMatching(/^RetriesExhaustedError \[\w+\]: .*book-carrier/),
        owner: null,
      },
      waitingReason: expect.stringContaining('step #1 book-carrier is parked'),
      steps: [
        {
          seq: 0,
          name: 'draft',
          status: 'completed',
          idempotencyKey: `${ids.resolve}:0`,
          output: `draft ${s}a`,
        },
        {
          seq: 1,
          name: 'book-carrier',
          status: 'parked',
          attempts: 2,
          error: { name: 'RetryableError', message: `carrier unavailable for ${s}a` },
          idempotencyKey: `${ids.resolve}:1`,
        },
      ],
    });

    // The key @Idempotent gave the step; the error's first line only.
    expect(failed.stdout).toMatch(
      new RegExp(
        `^1\\s+submit\\s+failed\\s+1\\s+\\S+\\s+charge-${s}\\s+Error: card declined for \\S+$`,
        'm',
      ),
    );
    expect(failed.stdout).not.toContain('at the gateway');

    expect(unknown.code).toBe(1);
    expect(errorLines(unknown)).toEqual(['error: no run with id "no-such-run"']);
  });

  it('signal --key: a repeat with the same key is not stored again; an empty key exits 2', async () => {
    const first = await cli('signal', ids.approval, 'note', '"hello"', '--key', `note-${s}`);
    const again = await cli('signal', ids.approval, 'note', '"hello"', '--key', `note-${s}`);
    const empty = await cli('signal', ids.approval, 'note', '"hello"', '--key', '');
    expect(first).toMatchObject({
      code: 0,
      stdout: `sent signal "note" to run "${ids.approval}"\n`,
    });
    expect(again).toMatchObject({
      code: 0,
      stdout: `already sent signal "note" to run "${ids.approval}" with key "note-${s}": not stored again\n`,
    });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--key must be 1 to 200 characters long, got 0');
    expect(await runtime.handle(ids.approval).pendingSignals('note')).toHaveLength(1);
  });

  it('signal: a JSON payload from a file wakes the run; unknown and finished runs exit 1', async () => {
    const payload = join(scratch, `approval-${s}.json`);
    writeFileSync(payload, '{ "approved": true }\n');
    const [sent, unknown, finished] = await Promise.all([
      cli('signal', ids.approval, 'approval', '--file', payload),
      cli('signal', 'no-such-run', 'approval', '{}'),
      cli('signal', ids.pipeline, 'approval', '{"approved": true}'),
    ]);
    expect(sent).toMatchObject({
      code: 0,
      stdout: `sent signal "approval" to run "${ids.approval}"\n`,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no run with id "no-such-run"');
    expect(finished.code).toBe(1);
    expect(finished.stderr).toContain(`run "${ids.pipeline}": it is already completed`);
  });

  it('retry, resolve, cancel and fork act on runs and leave them queued for a worker', async () => {
    const [retried, retriedParked, resolved, cancelled, forked] = await Promise.all([
      cli('retry', ids.charge),
      cli('retry', ids.retry),
      cli('resolve', ids.resolve, '"booked by hand"'),
      cli('cancel', ids.cancel, '--reason', 'duplicate order'),
      cli('fork', ids.pipeline, '--from', '1', '--id', ids.fork),
    ]);
    for (const result of [retried, retriedParked, resolved, cancelled, forked]) {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }
    expect(retried.stdout).toContain(`run "${ids.charge}" is back to work`);
    expect(resolved.stdout).toContain(`resolved the parked step of run "${ids.resolve}"`);
    expect(cancelled.stdout).toBe(`cancelled run "${ids.cancel}"\n`);
    expect(forked.stdout).toContain(`forked run "${ids.pipeline}" at #1 as "${ids.fork}"`);
    // The CLI has no workflow code: the runs it took over are back in the queue, no owner.
    for (const runId of [ids.charge, ids.retry, ids.resolve, ids.fork]) {
      expect(await describeRun(runId)).toMatchObject({ status: 'pending', owner: null });
    }
    expect(await describeRun(ids.cancel)).toMatchObject({ status: 'cancelled' });
    expect(await describeRun(ids.fork)).toMatchObject({ forkedFrom: ids.pipeline, forkedSeq: 1 });

    const [cancelAgain, forkAgain, retryWaiting, resolveFinished, retryUnknown] = await Promise.all(
      [
        cli('cancel', ids.cancel),
        cli('fork', ids.pipeline, '--from', '1', '--id', ids.fork),
        cli('retry', ids.approval),
        cli('resolve', ids.pipeline, '{}'),
        cli('retry', 'no-such-run'),
      ],
    );
    for (const result of [cancelAgain, forkAgain, retryWaiting, resolveFinished, retryUnknown]) {
      expect(result.code).toBe(1);
      expect(errorLines(result)).toHaveLength(1);
    }
    expect(cancelAgain.stderr).toContain('it has already ended');
    expect(forkAgain.stderr).toContain(`run "${ids.fork}" already exists`);
    expect(retryWaiting.stderr).toContain('only failed or needs_attention runs can be retried');
    expect(resolveFinished.stderr).toContain(`cannot resolve a step of run "${ids.pipeline}"`);
  });

  it('worker: loads the module, finishes the runs handed to it, stops on SIGTERM (exit 0)', async () => {
    const worker = new WorkerCli([FIXTURE, '--poll-interval', '100ms', '--concurrency', '4'], {
      db: db.url,
      env: { CLI_FIXTURE_FIXED: '1' },
    });
    const handedOver = [ids.approval, ids.charge, ids.retry, ids.resolve, ids.fork];
    await worker.waitFor(handedOver.map((id) => new RegExp(` run\\.completed ${id} `)));
    const stopped = await worker.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toMatch(
      /^worker \S+ executing cli-approval, cli-charge, cli-ship, cli-pipeline from /m,
    );
    expect(stopped.stdout).toMatch(
      /^SIGTERM: letting steps in flight finish \(up to 10s\), then handing runs over$/m,
    );
    expect(stopped.stdout.trimEnd().split('\n').at(-1)).toBe('worker stopped');

    expect(await runtime.handle(ids.approval).result()).toBe('approved');
    expect(await runtime.handle(ids.charge).result()).toBe(`charged ${s}`);
    expect(await runtime.handle(ids.retry).result()).toBe(`booked ${s}b`);
    expect(await runtime.handle(ids.resolve).result()).toBe('booked by hand');
    // Seq 0 was copied from the original; 1 and 2 ran anew on the "fixed" code.
    expect(await runtime.handle(ids.fork).result()).toEqual([
      `${s}-a done`,
      `${s}-b done (fixed)`,
      `${s}-c done (fixed)`,
    ]);
    expect(await runtime.handle(ids.pipeline).result()).toEqual([
      `${s}-a done`,
      `${s}-b done`,
      `${s}-c done`,
    ]);
  });
});
