import { container as rootContainer, injectable } from 'tsyringe';
import { Step, Workflow, dataSourceOptionsFromUrl } from 'waymark';
import { createTestRuntime, SimulatedCrash, type TestRuntime } from 'waymark/testing';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import { QueryCounter } from '../support/QueryCounter';

const N = 25;

@injectable()
class Pipeline {
  @Workflow({ id: (id: string) => `pipeline-${id}` })
  async process(_id: string): Promise<number> {
    let total = 0;
    for (let i = 0; i < N; i++) total += await this.stage(i);
    return total;
  }

  @Step()
  async stage(i: number): Promise<number> {
    return i;
  }
}

@injectable()
class Notifier {
  @Workflow({ id: (id: string) => `notify-${id}` })
  async notify(id: string): Promise<string> {
    await this.plain(id);
    return this.once(id);
  }

  @Step()
  async plain(id: string): Promise<string> {
    return id;
  }

  @Step({ atMostOnce: true })
  async once(id: string): Promise<string> {
    return `sent ${id}`;
  }
}

describe.each(ALL_BACKENDS)('statements per run on %s', (backend) => {
  let db: TestDatabase;
  let runtime: TestRuntime;
  const counter = new QueryCounter();

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    runtime = await createTestRuntime({
      database: { ...dataSourceOptionsFromUrl(db.url), logging: ['query'], logger: counter },
      container: rootContainer.createChildContainer(),
    });
  });
  afterAll(async () => {
    await runtime.close();
    await db.drop();
  });

  it(`a fresh run of ${N} steps issues ${N} + 2 writes and no read`, async () => {
    counter.reset();
    await expect(rootContainer.resolve(Pipeline).process('fresh')).resolves.toBe((N * (N - 1)) / 2);
    expect(counter.writes).toHaveLength(N + 2);
    expect(counter.writes.filter((s) => /INTO waymark_steps/.test(s))).toHaveLength(N);
    expect(counter.reads).toEqual([]);
  });

  it('a resumed run reads its history in one query and writes only the steps left', async () => {
    runtime.crash.afterCommit('Pipeline.stage', { seq: 9 });
    await expect(rootContainer.resolve(Pipeline).process('resumed')).rejects.toThrow(
      SimulatedCrash,
    );
    runtime = await runtime.restart();
    counter.reset();
    await rootContainer.resolve(Pipeline).process('resumed');
    const historyReads = counter.reads.filter((s) => /FROM waymark_steps/.test(s));
    expect(historyReads).toHaveLength(1);
    // Reads: the run row and its history. Writes: the create that finds the run exists, the
    // claim, the steps left, the end.
    expect(counter.reads).toHaveLength(2);
    const stepWrites = counter.writes.filter((s) => /INTO waymark_steps/.test(s));
    expect(stepWrites).toHaveLength(N - 10);
    expect(counter.writes).toHaveLength(1 + 1 + (N - 10) + 1);
  });

  it('recover() of one run a dead process left costs 3 round trips: find, claim, history', async () => {
    runtime.crash.afterCommit('Pipeline.stage', { seq: 4 });
    await expect(rootContainer.resolve(Pipeline).process('recovered')).rejects.toThrow(
      SimulatedCrash,
    );
    runtime = await runtime.restart();
    counter.reset();
    const handles = await runtime.recover();
    expect(handles.map((h) => h.runId)).toEqual(['pipeline-recovered']);
    await expect(handles[0].result()).resolves.toBe((N * (N - 1)) / 2);
    const firstStep = counter.statements.findIndex((s) => /INTO waymark_steps/.test(s));
    const beforeSteps = counter.statements.slice(0, firstStep);
    expect(beforeSteps.map((s) => s.split(' ')[0].toUpperCase())).toEqual([
      'SELECT',
      'UPDATE',
      'SELECT',
    ]);
    expect(beforeSteps[2]).toMatch(/FROM waymark_steps/);
  });

  it('a plain step costs one write and an at-most-once step two (its intent marker first)', async () => {
    counter.reset();
    await expect(rootContainer.resolve(Notifier).notify('n1')).resolves.toBe('sent n1');
    const stepWrites = counter.writes.filter((s) => /waymark_steps/.test(s));
    expect(stepWrites.map((s) => s.split(' ')[0])).toEqual(['INSERT', 'INSERT', 'UPDATE']);
    expect(counter.writes).toHaveLength(2 + 3);
    expect(counter.reads).toEqual([]);
  });

  it('queuing a run costs one write, and the process that queued it does not watch it', async () => {
    counter.reset();
    await runtime.start(Pipeline, 'process', ['queued'], { queue: true });
    expect(counter.statements).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(counter.statements).toHaveLength(1);
    expect(await runtime.handle('pipeline-queued').status()).toBe('pending');
  });

  it('calling a completed run again reads it and writes nothing', async () => {
    counter.reset();
    await rootContainer.resolve(Pipeline).process('fresh');
    expect(counter.reads).toHaveLength(1);
    expect(counter.writes).toHaveLength(1); // the INSERT that finds the run already exists
  });
});
