import { container as rootContainer, injectable, type DependencyContainer } from 'tsyringe';
import { CorruptValueError, Step, Workflow } from 'waymark';
import { createTestRuntime, SimulatedCrash, type TestRuntime } from 'waymark/testing';
import { createTestDatabase, type TestDatabase } from '../support/databases';

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}

class NamelessError extends Error {
  override get name(): string {
    throw new Error('name is not readable');
  }
}

/** Steps whose outcomes fight the codec; the workflow catches each failure and goes on. */
@injectable()
class Hostile {
  @Workflow({ name: 'hostile', id: (kind: string) => `hostile-${kind}` })
  async run(kind: string): Promise<string> {
    try {
      await this.produce(kind);
      return 'stored';
    } catch (error) {
      return `${(error as Error).constructor.name}: ${(error as Error).message}`;
    }
  }

  @Step()
  async produce(kind: string): Promise<unknown> {
    switch (kind) {
      case 'deep':
        return nested(20_000);
      case 'getter':
        return {
          get total(): number {
            throw new Error('not loaded');
          },
        };
      case 'proxy':
        return [
          new Proxy(
            {},
            {
              ownKeys: () => {
                throw new Error('trap');
              },
            },
          ),
        ];
      default:
        throw new NamelessError('the error itself');
    }
  }
}

@injectable()
class Dated {
  @Workflow({ name: 'dated', id: (id: string) => `dated-${id}` })
  async run(id: string): Promise<string> {
    const at = await this.when(id);
    return (await this.after(at)).toISOString();
  }

  @Step()
  async when(_id: string): Promise<Date> {
    return new Date(Date.UTC(2026, 0, 2));
  }

  @Step()
  async after(at: Date): Promise<Date> {
    return new Date(at.getTime() + 1000);
  }
}

describe('values the codec cannot store or read, inside runs', () => {
  let db: TestDatabase;
  let runtime: TestRuntime;
  let scope: DependencyContainer;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite-file');
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    scope = rootContainer.createChildContainer();
    runtime = await createTestRuntime({ database: db.url, container: scope });
  });
  afterEach(async () => {
    await runtime.close();
  });

  it.each([
    [
      'deep',
      /^SerializationError: cannot store result(\.next)+…\(980 more levels\)….*nested more than 1000 levels deep$/,
    ],
    [
      'getter',
      /^SerializationError: cannot store result\.total: reading it threw Error: not loaded$/,
    ],
    ['proxy', /^SerializationError: cannot store result\[0\]: reading it threw Error: trap$/],
  ])(
    'a %s result is recorded as the step failing with a SerializationError the workflow can catch',
    async (kind, message) => {
      await expect(scope.resolve(Hostile).run(kind)).resolves.toMatch(message);
      const [step] = await runtime.history(`hostile-${kind}`);
      expect(step).toMatchObject({ name: 'produce', status: 'failed' });
      expect(step.error).toMatchObject({ name: 'SerializationError' });
      // Replayed, the recorded failure takes the same branch.
      await expect(scope.resolve(Hostile).run(kind)).resolves.toMatch(message);
    },
  );

  it('a step that throws an error whose name cannot be read still records its failure, and the workflow sees what is stored', async () => {
    // Stored as a snapshot (its name unreadable): live, the workflow gets the snapshot too,
    // as a replay would, so both take the same branch.
    await expect(scope.resolve(Hostile).run('nameless')).resolves.toBe('Error: the error itself');
    const [step] = await runtime.history('hostile-nameless');
    expect(step).toMatchObject({
      name: 'produce',
      status: 'failed',
      error: { name: 'Error', message: 'the error itself' },
    });
  });

  it('a tampered checkpoint stops the run with a CorruptValueError naming the step', async () => {
    runtime.crash.afterCommit('Dated.when');
    await expect(scope.resolve(Dated).run('t1')).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    await runtime.dataSource.query(
      `UPDATE waymark_steps SET output = '{"$wm":"Date","v":"garbage"}' WHERE run_id = 'dated-t1'`,
    );
    const error = await scope
      .resolve(Dated)
      .run('t1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptValueError);
    expect((error as Error).message).toBe(
      'cannot read step #0 "when" result: expected an ISO time, found "garbage"',
    );
    await expect(runtime.handle('dated-t1')).toHaveRunStatus('needs_attention');
  });
});
