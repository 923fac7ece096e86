import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { injectable } from 'tsyringe';
import { ConfigurationError, Idempotent, Step, Workflow, WorkflowContext } from 'waymark';
import { crashMatrix, type CrashMatrixOptions, type CrashMatrixReport } from 'waymark/testing';
import { RecordingLogger } from '../support/RecordingLogger';

/** A matrix's runtimes log their events here: which run each case's restart resumed. */
const eventLog = (): RecordingLogger => new RecordingLogger([]);

/** Each case's restart resumed one run, whose id matches `runId`. */
function expectEachCaseResumed(
  log: RecordingLogger,
  report: CrashMatrixReport,
  runId: RegExp,
): void {
  const resumed = log.records
    .filter((record) => record.message === 'waymark run.resumed')
    .map((record) => record.fields?.runId);
  expect(resumed).toEqual(report.cases.map(() => expect.stringMatching(runId)));
}

/** External effects, counted per kind; keyed effects are deduplicated like a real gateway would. */
class Outbox {
  readonly effects: Record<string, number> = {};
  private readonly keys = new Set<string>();

  send(kind: string, key?: string): void {
    if (key !== undefined && this.keys.has(key)) return;
    if (key !== undefined) this.keys.add(key);
    this.effects[kind] = (this.effects[kind] ?? 0) + 1;
  }
}

@injectable()
class Onboarding {
  constructor(
    private readonly outbox: Outbox,
    private readonly ctx: WorkflowContext,
  ) {}

  @Workflow({ name: 'onboarding', id: (user: string) => `onboard-${user}` })
  async onboard(user: string): Promise<string> {
    const account = await this.createAccount(user);
    await this.ctx.sleep('1h');
    await this.welcome(user);
    return `${account} welcomed at ${this.ctx.now().toISOString()}`;
  }

  @Step()
  @Idempotent({ key: (user: string) => `account-${user}` })
  async createAccount(user: string): Promise<string> {
    this.outbox.send('account', this.ctx.idempotencyKey);
    return `acct-${user}`;
  }

  @Step()
  async welcome(user: string): Promise<void> {
    this.outbox.send(`mail:${user}`);
  }
}

describe('crashMatrix', () => {
  it('crashes every executed step at every hook point and reports each case', async () => {
    const report = await crashMatrix(Onboarding, 'onboard', ['ada'], {
      setup: (container) => container.register(Outbox, { useFactory: () => new Outbox() }),
    });
    expect(report.reference.steps.map((s) => s.name)).toEqual([
      'createAccount',
      'sleep',
      'welcome',
      'ctx.now',
    ]);
    expect(report.cases.map((c) => `${c.point} ${c.target}`)).toEqual([
      'before Onboarding.createAccount',
      'afterEffect Onboarding.createAccount',
      'afterCommit Onboarding.createAccount',
      'before Onboarding.welcome',
      'afterEffect Onboarding.welcome',
      'afterCommit Onboarding.welcome',
    ]);
    expect(report.reference.outcome).toEqual({
      ok: true,
      value: 'acct-ada welcomed at 2026-01-01T01:00:00.000Z',
    });
  });

  it('reports an effect that a crash duplicates, naming the case', async () => {
    let outbox = new Outbox();
    const report = await crashMatrix(Onboarding, 'onboard', ['bob'], {
      setup: (container) => {
        outbox = new Outbox();
        container.registerInstance(Outbox, outbox);
      },
      effects: () => ({ ...outbox.effects }),
    });
    expect(report.failures.map((c) => `${c.point} ${c.target}`)).toEqual([
      'afterEffect Onboarding.welcome',
    ]);
    expect(report.summary()).toBe(
      'afterEffect Onboarding.welcome #2: effect "mail:bob" 2× instead of 1×',
    );
    expect(() => expect(report).toSurviveEveryCrash()).toThrow(/1 of 6 crash cases differ/);
  });
});

@injectable()
class Procurement {
  constructor(
    private readonly outbox: Outbox,
    private readonly ctx: WorkflowContext,
  ) {}

  @Workflow({ name: 'matrix-procurement', id: (order: string) => `po-${order}` })
  async procure(order: string): Promise<string> {
    await this.submit(order);
    const approval = await this.ctx.waitForSignal<{ approved: boolean }>('approval', {
      timeout: '7d',
    });
    return approval.approved ? this.place(order) : 'rejected';
  }

  @Step()
  @Idempotent({ key: (order: string) => `submit-${order}` })
  async submit(_order: string): Promise<void> {
    this.outbox.send('submit', this.ctx.idempotencyKey);
  }

  @Step()
  async place(order: string): Promise<string> {
    this.outbox.send(`place:${order}`);
    return `placed ${order}`;
  }
}

@injectable()
class PatientProcurement {
  constructor(private readonly ctx: WorkflowContext) {}

  /** Sleeps first, then waits without a deadline: the signal can be sent before the wait. */
  @Workflow({ name: 'matrix-patient', id: (order: string) => `patient-${order}` })
  async procure(order: string): Promise<string> {
    await this.submit(order);
    await this.ctx.sleep('1h');
    const approval = await this.ctx.waitForSignal<{ by: string }>('approval');
    return this.place(`${order} by ${approval.by}`);
  }

  @Step()
  async submit(order: string): Promise<string> {
    return order;
  }

  @Step()
  async place(order: string): Promise<string> {
    return `placed ${order}`;
  }
}

/** The onboarding workflow without `@Workflow({ id })`: every call gets a new run id. */
@injectable()
class AnonymousOnboarding {
  constructor(
    private readonly outbox: Outbox,
    private readonly ctx: WorkflowContext,
  ) {}

  @Workflow({ name: 'matrix-anonymous-onboarding' })
  async onboard(user: string): Promise<string> {
    const account = await this.createAccount(user);
    await this.welcome(user);
    return account;
  }

  @Step()
  @Idempotent({ key: (user: string) => `account-${user}` })
  async createAccount(user: string): Promise<string> {
    this.outbox.send('account', this.ctx.idempotencyKey);
    return `acct-${user}`;
  }

  @Step()
  async welcome(user: string): Promise<void> {
    this.outbox.send(`mail:${user}`, this.ctx.idempotencyKey);
  }
}

/** A run id the runtime chose (`@Workflow()` without `id`). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A fresh Outbox per case, whose effects the matrix compares. */
function countedOutbox(): Pick<CrashMatrixOptions, 'setup' | 'effects'> {
  let outbox = new Outbox();
  return {
    setup: (container) => {
      outbox = new Outbox();
      container.registerInstance(Outbox, outbox);
    },
    effects: () => ({ ...outbox.effects }),
  };
}

describe('crashMatrix with signals', () => {
  it('a run whose wait times out is not a reference: the matrix rejects instead of passing', async () => {
    const matrix = crashMatrix(Procurement, 'procure', ['1'], countedOutbox());
    await expect(matrix).rejects.toThrow(ConfigurationError);
    await expect(matrix).rejects.toThrow(
      'crashMatrix(Procurement.procure): the uninterrupted run failed (SignalTimeoutError: ',
    );
    await expect(matrix).rejects.toThrow(
      'Send what it waits for (signals: [{ name, payload }]), or pass expectError',
    );
  });

  it('sends the signal when the run waits for it, and crashes the steps after the wait too', async () => {
    const report = await crashMatrix(Procurement, 'procure', ['2'], {
      ...countedOutbox(),
      signals: [{ name: 'approval', payload: { approved: true } }],
    });
    expect(report.reference.outcome).toEqual({ ok: true, value: 'placed 2' });
    expect(report.reference.steps.map((s) => s.name)).toEqual([
      'submit',
      'signal:approval',
      'place',
    ]);
    expect(report.cases.map((c) => `${c.point} ${c.target}`)).toEqual([
      'before Procurement.submit',
      'afterEffect Procurement.submit',
      'afterCommit Procurement.submit',
      'before Procurement.place',
      'afterEffect Procurement.place',
      'afterCommit Procurement.place',
    ]);
    expect(
      report.failures.map((c) => `${c.point} ${c.target}: ${c.differences.join('; ')}`),
    ).toEqual(['afterEffect Procurement.place: effect "place:2" 2× instead of 1×']);
  });

  it('sends a signal `after` a step while the run waits for something else', async () => {
    const report = await crashMatrix(PatientProcurement, 'procure', ['3'], {
      signals: [{ name: 'approval', payload: { by: 'dana' }, after: 'PatientProcurement.submit' }],
    });
    expect(report).toSurviveEveryCrash();
  });

  it('rejects when a signal was never sent', async () => {
    await expect(
      crashMatrix(PatientProcurement, 'procure', ['4'], {
        signals: [
          { name: 'approval', payload: { by: 'dana' } },
          { name: 'escalation', after: 'PatientProcurement.never' },
        ],
      }),
    ).rejects.toThrow('the uninterrupted run ended without the signal(s) escalation being sent');
  });

  it('rejects when the run waits with no deadline for a signal it was not given', async () => {
    await expect(crashMatrix(PatientProcurement, 'procure', ['5'])).rejects.toThrow(
      "the uninterrupted run waits for signal:approval with no deadline; send it: signals: [{ name: 'approval', payload }]",
    );
  });

  it('compares with a failing reference when the test says the failure is expected', async () => {
    const report = await crashMatrix(Procurement, 'procure', ['6'], {
      ...countedOutbox(),
      expectError: 'SignalTimeoutError',
    });
    // The error as stored: a re-throw's line names when the run ended, which cases differ in.
    expect(report.reference.outcome).toEqual({
      ok: false,
      error: expect.not.stringContaining('↳ run'),
    });
    expect(report).toSurviveEveryCrash();
    await expect(
      crashMatrix(Procurement, 'procure', ['7'], {
        signals: [{ name: 'approval', payload: { approved: false } }],
        expectError: /SignalTimeoutError/,
      }),
    ).rejects.toThrow(
      'expected the uninterrupted run to fail with /SignalTimeoutError/, but it returned "rejected"',
    );
  });
});

describe('crashMatrix gives every case a run of its own', () => {
  it('resumes by run id, so a workflow without @Workflow({ id }) is judged right', async () => {
    const log = eventLog();
    const report = await crashMatrix(AnonymousOnboarding, 'onboard', ['eve'], {
      ...countedOutbox(),
      runtime: { logger: log, logEvents: true },
    });
    expect(report).toSurviveEveryCrash();
    // A run id of its own per case: each restart resumes its case's run.
    expectEachCaseResumed(log, report, UUID);
  });

  it('refuses a database every case would share', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waymark-matrix-'));
    try {
      const file = `sqlite:${join(dir, 'shared.db')}`;
      await expect(
        crashMatrix(Onboarding, 'onboard', ['fay'], { runtime: { database: file } }),
      ).rejects.toThrow(
        `crashMatrix(Onboarding.onboard): runtime.database "${file}" would be shared by every crash case`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs each case on the fresh database a function returns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waymark-matrix-'));
    let made = 0;
    try {
      const log = eventLog();
      const report = await crashMatrix(AnonymousOnboarding, 'onboard', ['gus'], {
        ...countedOutbox(),
        runtime: {
          ...{ database: () => `sqlite:${join(dir, `case-${made++}.db`)}` },
          ...{ logger: log, logEvents: true },
        },
      });
      expect(report).toSurviveEveryCrash();
      expectEachCaseResumed(log, report, UUID);
      expect(made).toBe(1 + report.cases.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails a case that executed nothing because its database already held the finished run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waymark-matrix-'));
    try {
      const file = `sqlite:${join(dir, 'reused.db')}`;
      const report = await crashMatrix(Onboarding, 'onboard', ['hal'], {
        runtime: { database: () => file }, // "fresh", but the same file every time
      });
      expect(report.cases.length).toBeGreaterThan(0);
      expect(report.failures).toHaveLength(report.cases.length);
      expect(report.failures[0]?.differences).toEqual([
        'executed no step: the run was already finished in its database',
        'the crash never happened: no before Onboarding.createAccount #0',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
