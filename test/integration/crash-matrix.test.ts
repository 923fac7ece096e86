import { injectable } from 'tsyringe';
import { Idempotent, Step, Workflow, WorkflowContext } from 'waymark';
import { crashMatrix } from 'waymark/testing';

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
