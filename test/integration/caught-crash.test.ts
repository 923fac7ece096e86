import { container as rootContainer, injectable } from 'tsyringe';
import { Step, Workflow, WorkflowContext } from 'waymark';
import { createTestRuntime, SimulatedCrash, type TestRuntime } from 'waymark/testing';

/** What the workflow code saw from `ctx.uuid()` in each life: a value, or what it threw. */
const seen: Array<string | Error> = [];

/** Careless workflow code: it swallows a step's error, a simulated crash included. */
@injectable()
class Careless {
  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'careless', id: (id: string) => id })
  async run(id: string): Promise<string> {
    await this.charge(id).catch(() => 'ignored');
    try {
      const token = this.ctx.uuid();
      seen.push(token);
      return token;
    } catch (error) {
      seen.push(error as Error);
      throw error;
    }
  }

  @Step()
  async charge(id: string): Promise<string> {
    return `charged ${id}`;
  }
}

describe('workflow code that catches a crash', () => {
  let runtime: TestRuntime;

  beforeEach(async () => {
    seen.length = 0;
    runtime = await createTestRuntime({
      container: rootContainer.createChildContainer(),
    });
  });
  afterEach(() => runtime.close());

  it('is refused a new ctx.uuid() once its runtime died, so every life that saw a value sees the stored one', async () => {
    runtime.crash.afterCommit('Careless.charge');
    await expect(runtime.run(Careless, 'run', ['careless-1'])).rejects.toThrow(SimulatedCrash);
    expect(seen).toEqual([expect.any(SimulatedCrash)]);

    runtime = await runtime.restart();
    const token = await runtime.run(Careless, 'run', ['careless-1']);
    expect(seen.slice(1)).toEqual([token]);
    const stored = (await runtime.history('careless-1')).find((s) => s.name === 'ctx.uuid');
    expect(stored?.output).toMatchObject({ json: JSON.stringify(token) });
  });
});
