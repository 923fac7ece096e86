import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { Waymark, type RunHandle, type RunStatus, type WaymarkEventName } from 'waymark';
import {
  createTestRuntime,
  EffectLedger,
  SimulatedCrash,
  type CrashPoint,
  type TestRuntime,
} from 'waymark/testing';
import { APPROVAL_CHAIN, ERP, FakeErp, FakeLlm, LLM } from './fakes';
import {
  ProcurementAgent,
  procurementRunId,
  type Approval,
  type Outcome,
  type PurchaseRequest,
} from './ProcurementAgent';

const ROOT = resolve(__dirname, '..', '..');
const [MANAGER, CFO] = APPROVAL_CHAIN;

const request: PurchaseRequest = {
  id: '1042',
  item: 'Standing desk',
  quantity: 4,
  unitPrice: 45_000,
  currency: 'EUR',
  requester: 'ada@acme.example',
  reason: 'the platform team moves to the new floor',
};
const RUN_ID = procurementRunId(request);
const SUBMITTED = `erp.submit:${request.id}`;
const ORDERED = 'erp.order:REQ-0001';
const approve = (by: string): Approval => ({ approved: true, by });

/** One office: a container with the fakes, a test runtime on a fake clock, a ledger. */
interface Office {
  scope: DependencyContainer;
  runtime: TestRuntime;
  ledger: EffectLedger;
  llm: FakeLlm;
  start(runId?: string): Promise<RunHandle<Outcome>>;
  close(): Promise<void>;
}

async function openOffice(llm = new FakeLlm()): Promise<Office> {
  const scope = rootContainer.createChildContainer();
  const runtime = await createTestRuntime({ clock: 'fake', container: scope });
  const ledger = await EffectLedger.open(runtime);
  scope.registerInstance(LLM, llm);
  scope.registerInstance(ERP, new FakeErp({ recorder: ledger }));
  const office: Office = {
    scope,
    runtime,
    ledger,
    llm,
    start: (runId) => office.runtime.start(ProcurementAgent, 'procure', [request], { runId }),
    async close() {
      await ledger.close();
      await office.runtime.close();
    },
  };
  return office;
}

/** Polls the run's stored status (real time) until it is `status`. */
async function untilStatus(handle: RunHandle, status: RunStatus): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await handle.status()) === status) return;
    await sleep(10);
  }
  throw new Error(`run "${handle.runId}" never became ${status}; it is ${await handle.status()}`);
}

/**
 * Once the run is parked, starts awaiting its result. The caller resumes the run here when
 * it is due (a signal, or its timeout on the fake clock); it waits on the fake clock once
 * it has read the parked run, so a clock advance from then on reaches it.
 */
async function awaitParked(
  runtime: TestRuntime,
  handle: RunHandle<Outcome>,
): Promise<{ outcome: Promise<Outcome> }> {
  await untilStatus(handle, 'waiting');
  const outcome = handle.result();
  outcome.catch(() => undefined);
  await runtime.clock.untilSleeping();
  return { outcome };
}

/** The next `event` the runtime emits. */
function nextEvent(runtime: TestRuntime, event: WaymarkEventName): Promise<void> {
  return new Promise((done) => {
    const listener = runtime.on(event, () => {
      listener.dispose();
      done();
    });
  });
}

describe('ProcurementAgent under the test runtime', () => {
  let office: Office;

  beforeEach(async () => {
    office = await openOffice();
  });
  afterEach(async () => {
    await office.close();
  });

  it('an approval places the order; the requisition is submitted once', async () => {
    const { runtime, ledger } = office;
    const handle = await office.start();
    expect(handle.runId).toBe(RUN_ID);
    const { outcome } = await awaitParked(runtime, handle);
    expect(await handle.describe()).toMatchObject({ status: 'waiting', owner: null });

    await runtime.signal(RUN_ID, 'approval', approve(MANAGER));

    await expect(outcome).resolves.toEqual({
      status: 'ordered',
      requisitionId: 'REQ-0001',
      orderId: 'PO-0001',
      approvedBy: MANAGER,
      escalatedTo: null,
    });
    await expect(handle).toHaveCompletedSteps(['draft', 'submit', 'signal:approval', 'place']);
    expect(runtime).toHaveExecutedStepTimes('ProcurementAgent.submit', 1);
    await expect(ledger).toHaveEffectOnce(SUBMITTED);
    await expect(ledger).toHaveEffectOnce(ORDERED);
  });

  it('a rejection ends the run without an order', async () => {
    const { runtime, ledger } = office;
    const handle = await office.start();
    const { outcome } = await awaitParked(runtime, handle);

    await runtime.signal(RUN_ID, 'approval', { approved: false, by: MANAGER });

    await expect(outcome).resolves.toEqual({
      status: 'rejected',
      requisitionId: 'REQ-0001',
      rejectedBy: MANAGER,
      escalatedTo: null,
    });
    await expect(handle).toHaveRunStatus('completed');
    expect(runtime).toHaveExecutedStepTimes('ProcurementAgent.place', 0);
    expect(await ledger.count(ORDERED)).toBe(0);
  });

  it('no answer in 7 days escalates to the next approver, whose approval places the order', async () => {
    const { runtime, ledger } = office;
    const handle = await office.start();
    const { outcome } = await awaitParked(runtime, handle);

    await runtime.clock.advance('7d');
    await runtime.clock.untilSleeping(); // resumed, escalated, parked again
    expect((await handle.history()).map((s) => [s.name, s.status, s.error?.name])).toEqual([
      ['draft', 'completed', undefined],
      ['submit', 'completed', undefined],
      ['signal:approval', 'failed', 'SignalTimeoutError'],
      ['escalate', 'completed', undefined],
      ['signal:approval', 'started', undefined],
    ]);
    await expect(ledger).toHaveEffectOnce('erp.escalate:REQ-0001');

    await runtime.signal(RUN_ID, 'approval', approve(CFO));

    await expect(outcome).resolves.toEqual({
      status: 'ordered',
      requisitionId: 'REQ-0001',
      orderId: 'PO-0001',
      approvedBy: CFO,
      escalatedTo: CFO,
    });
    await expect(ledger).toHaveEffectOnce(ORDERED);
  });

  it('no answer from the escalated approver either: the request expires without an order', async () => {
    const { runtime, ledger } = office;
    const handle = await office.start();
    const { outcome } = await awaitParked(runtime, handle);

    await runtime.clock.advance('7d');
    await runtime.clock.untilSleeping();
    await runtime.clock.advance('7d');

    await expect(outcome).resolves.toEqual({
      status: 'expired',
      requisitionId: 'REQ-0001',
      escalatedTo: CFO,
    });
    expect(await ledger.count(ORDERED)).toBe(0);
  });

  it('an approval stored after the 7 days, before anything acted on the timeout, still counts', async () => {
    const { runtime } = office;
    const handle = await office.start();
    await untilStatus(handle, 'waiting');
    await runtime.clock.advance('8d'); // nobody is awaiting the run here: it just becomes due

    await runtime.signal(RUN_ID, 'approval', approve(MANAGER));

    await expect(handle.result()).resolves.toMatchObject({
      status: 'ordered',
      approvedBy: MANAGER,
      escalatedTo: null,
    });
    expect(runtime).toHaveExecutedStepTimes('ProcurementAgent.escalate', 0);
  });

  it.each<CrashPoint>(['afterEffect', 'afterCommit'])(
    'a crash %s of submit, then a restart before the approval: one ERP submission',
    async (point) => {
      office.runtime.crash[point]('ProcurementAgent.submit');
      await expect(office.runtime.run(ProcurementAgent, 'procure', [request])).rejects.toThrow(
        SimulatedCrash,
      );
      await expect(office.ledger).toHaveEffectOnce(SUBMITTED);

      office.runtime = await office.runtime.restart();
      const handle = await office.start(); // finds the run and resumes it
      const { outcome } = await awaitParked(office.runtime, handle);
      await office.runtime.signal(RUN_ID, 'approval', approve(MANAGER));

      await expect(outcome).resolves.toMatchObject({
        status: 'ordered',
        requisitionId: 'REQ-0001',
      });
      // afterEffect: the checkpoint was lost, so submit ran again, with the same key.
      const submits = point === 'afterEffect' ? 2 : 1;
      expect(office.runtime).toHaveExecutedStepTimes('ProcurementAgent.submit', submits);
      expect(office.runtime).toHaveExecutedStepTimes('ProcurementAgent.draft', 1);
      await expect(office.ledger).toHaveEffectOnce(SUBMITTED);
      expect(await office.ledger.duplicates()).toEqual([]);
    },
  );

  it('a second run for the same request gets the first receipt: the submit key is global', async () => {
    const { runtime, ledger } = office;
    const first = await office.start();
    await untilStatus(first, 'waiting');
    const second = await office.start('po-1042-resubmitted');
    await untilStatus(second, 'waiting');

    expect(runtime).toHaveExecutedStepTimes('ProcurementAgent.submit', 1);
    await expect(ledger).toHaveEffectOnce(SUBMITTED);
    await expect(second).toHaveCompletedSteps(['draft', 'submit']);
  });
});

describe('ProcurementAgent with a rate-limited model', () => {
  it('retries the draft on RateLimitError, with backoff on the clock', async () => {
    const office = await openOffice(new FakeLlm({ rateLimitedCalls: 2 }));
    try {
      const { runtime } = office;
      const retried = nextEvent(runtime, 'step.retrying');
      const handle = await office.start();
      await retried;
      const retriedAgain = nextEvent(runtime, 'step.retrying');
      await runtime.clock.advance('1s'); // the first backoff is at most 1 s (full jitter)
      await retriedAgain;
      await runtime.clock.advance('2s');
      await untilStatus(handle, 'waiting');

      expect(office.llm.calls).toBe(3);
      const [draft] = await handle.history();
      expect(draft).toMatchObject({ name: 'draft', status: 'completed', attempts: 3 });
    } finally {
      await office.close();
    }
  });
});

/** What a child process printed, and how it ended. */
interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A walkthrough program running as a child process, as a user would run it. */
class Program {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly finished: Promise<Finished>;

  constructor(file: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(
      process.execPath,
      ['-r', '@swc-node/register', join(__dirname, file), ...args],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child.stdout!.on('data', (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.finished = new Promise((done) =>
      this.child.on('close', (code, signal) =>
        done({ code, signal, stdout: this.stdout, stderr: this.stderr }),
      ),
    );
  }

  /** Resolves once the program has printed a line matching `pattern`. */
  async printed(pattern: RegExp, deadlineMs = 20_000): Promise<void> {
    for (const started = Date.now(); !pattern.test(this.stdout); await sleep(20)) {
      if (this.child.exitCode !== null || Date.now() - started > deadlineMs) {
        throw new Error(`never printed ${String(pattern)}:\n${this.stdout}\n${this.stderr}`);
      }
    }
  }
}

describe('the three-terminal walkthrough: start.ts, worker.ts, approve.ts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-procurement-'));
  const url = `sqlite:${join(dir, 'procurement.db')}`;
  const env = { ...process.env, WAYMARK_DATABASE_URL: url };
  const run = (file: string, ...args: string[]): Promise<Finished> =>
    new Program(file, args, env).finished;
  let worker: Program | undefined;

  afterAll(() => {
    if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('start parks the run and exits, a worker resumes it on approval and exits 0 on SIGTERM', async () => {
    const started = await run('start.ts');
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
    expect(started.stdout).toMatch(/^\[po-1042\] draft +RateLimitError: .*; attempt 2 in /m);
    expect(started.stdout).toMatch(/^status: waiting for approval/m);
    const runId = /^run id: (\S+)$/m.exec(started.stdout)?.[1];
    expect(runId).toBe(RUN_ID);

    const observer = await Waymark.create({
      database: url,
      container: rootContainer.createChildContainer(),
    });
    try {
      // Held by no process: start.ts has exited and no worker runs yet.
      const handle = observer.handle<Outcome>(RUN_ID);
      expect(await handle.describe()).toMatchObject({ status: 'waiting', owner: null });

      worker = new Program('worker.ts', [], env);
      await worker.printed(/^worker \S+ polling /m);
      const approved = await run('approve.ts', RUN_ID, '--by', MANAGER);
      expect(approved).toMatchObject({ code: 0, stderr: '' });
      expect(approved.stdout).toBe(
        `approved run ${RUN_ID} as ${MANAGER}; the next worker poll resumes it\n`,
      );

      for (let i = 0; (await handle.status()) !== 'completed'; i++) {
        if (i > 200) throw new Error(`the worker did not finish the run:\n${worker.stdout}`);
        await sleep(100);
      }
      // Completed: result() only reads the stored outcome.
      await expect(handle.result()).resolves.toEqual({
        status: 'ordered',
        requisitionId: 'REQ-0001',
        orderId: 'PO-0001',
        approvedBy: MANAGER,
        escalatedTo: null,
      });
    } finally {
      await observer.close();
    }

    await worker.printed(/^\[po-1042\] completed: /m);
    expect(worker.stdout).toMatch(/^\[po-1042\] draft +recorded earlier: not run again$/m);
    expect(worker.stdout).toMatch(/^\[po-1042\] submit +recorded earlier: not run again$/m);
    expect(worker.stdout).toMatch(/^\[po-1042\] place +done /m);
    worker.child.kill('SIGTERM');
    await expect(worker.finished).resolves.toMatchObject({ code: 0, signal: null, stderr: '' });

    const erp = new FakeErp({ file: join(dir, 'procurement.erp.json') }).book;
    expect(erp.requisitions.map((r) => r.requisitionId)).toEqual(['REQ-0001']);
    expect(erp.orders).toEqual([
      { orderId: 'PO-0001', requisitionId: 'REQ-0001', approvedBy: MANAGER },
    ]);
  });

  it('approve.ts exits 1 with a clear error for a finished run and for an unknown run id', async () => {
    const again = await run('approve.ts', RUN_ID);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toBe(
      `approve: cannot signal "approval" to run "${RUN_ID}": it is already completed\n`,
    );

    const unknown = await run('approve.ts', 'po-0000');
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe('approve: no run with id "po-0000"\n');
  });
});
