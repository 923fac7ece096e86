import { container as rootContainer, injectable, type DependencyContainer } from 'tsyringe';
import {
  ConfigurationError,
  isNonDeterminismError,
  RetryableError,
  RetriesExhaustedError,
  StepInterceptor,
  Workflow,
  WorkflowContext,
  type StepInfo,
} from 'waymark';
import { createTestRuntime, SimulatedCrash, type TestRuntime } from 'waymark/testing';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';

/** Bodies run, by step name, across runtimes of one test. */
const ran: string[] = [];

@injectable()
class Research {
  static renamed = false;
  static failFirst = 0;

  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'inline-research', id: (topic: string) => `inline-${topic}` })
  async research(topic: string): Promise<string> {
    const sources = await this.ctx.step('search', async () => {
      ran.push('search');
      return [`${topic}-a`, `${topic}-b`];
    });
    const notes = await this.ctx.step(
      Research.renamed ? 'read-all' : 'read',
      async () => {
        ran.push('read');
        if (this.ctx.attempt <= Research.failFirst) throw new RetryableError('busy');
        return sources.map((s) => `notes on ${s} (attempt ${this.ctx.attempt})`);
      },
      { retry: { maxAttempts: 3, backoff: { fixed: '1ms' } } },
    );
    const key = await this.ctx.step(
      'key',
      async () => {
        ran.push('key');
        return this.ctx.idempotencyKey;
      },
      { key: `summary-${topic}` },
    );
    return `${notes.join('; ')} [${key}]`;
  }
}

/** Records every attempt it wraps. */
@injectable()
class RecordingInterceptor extends StepInterceptor {
  static seen: StepInfo[] = [];

  override async intercept(step: StepInfo, next: () => Promise<unknown>): Promise<unknown> {
    RecordingInterceptor.seen.push(step);
    return next();
  }
}

describe.each(ALL_BACKENDS)('inline steps (ctx.step) on %s', (backend) => {
  let db: TestDatabase;
  let runtime: TestRuntime;
  let scope: DependencyContainer;
  let n = 0;
  const topic = (): string => `${backend}-${++n}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    ran.length = 0;
    Research.renamed = false;
    Research.failFirst = 0;
    RecordingInterceptor.seen = [];
    scope = rootContainer.createChildContainer();
    scope.register(StepInterceptor, { useClass: RecordingInterceptor });
    runtime = await createTestRuntime({ database: db.url, container: scope });
  });
  afterEach(async () => {
    await runtime.close();
  });

  const research = (t: string) => scope.resolve(Research).research(t);

  it('records each inline step once; a crash after one commits replays it and runs the rest', async () => {
    const t = topic();
    runtime.crash.afterCommit('search');
    await expect(research(t)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    const result = await scope.resolve(Research).research(t);
    expect(result).toBe(
      `notes on ${t}-a (attempt 1); notes on ${t}-b (attempt 1) [inline-${t}:summary-${t}]`,
    );
    expect(ran).toEqual(['search', 'read', 'key']);
    const history = await runtime.history(`inline-${t}`);
    expect(history.map((s) => [s.seq, s.name, s.status])).toEqual([
      [0, 'search', 'completed'],
      [1, 'read', 'completed'],
      [2, 'key', 'completed'],
    ]);
  });

  it('retries an inline step by its retry options; the attempts are stored', async () => {
    const t = topic();
    Research.failFirst = 2;
    await expect(research(t)).resolves.toMatch(/\(attempt 3\)/);
    expect(ran.filter((s) => s === 'read')).toHaveLength(3);
    const [, read] = await runtime.history(`inline-${t}`);
    expect(read).toMatchObject({ name: 'read', status: 'completed', attempts: 3 });
    Research.failFirst = 5;
    await expect(research(topic())).rejects.toThrow(RetriesExhaustedError);
  });

  it('a renamed inline step stops the resumed run with NonDeterminismError and parks it', async () => {
    const t = topic();
    runtime.crash.afterCommit('read');
    await expect(research(t)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    Research.renamed = true;
    const error = await research(t).catch((e: unknown) => e);
    expect(isNonDeterminismError(error)).toBe(true);
    expect(String(error)).toMatch(/"read".*"read-all"|read.*read-all/);
    expect(await runtime.handle(`inline-${t}`).status()).toBe('needs_attention');
  });

  it('the interceptor wraps every attempt, with public step information', async () => {
    const t = topic();
    Research.failFirst = 1;
    await research(t);
    expect(RecordingInterceptor.seen).toEqual([
      { runId: `inline-${t}`, step: 'search', seq: 0, attempt: 1, kind: 'inline' },
      { runId: `inline-${t}`, step: 'read', seq: 1, attempt: 1, kind: 'inline' },
      { runId: `inline-${t}`, step: 'read', seq: 1, attempt: 2, kind: 'inline' },
      { runId: `inline-${t}`, step: 'key', seq: 2, attempt: 1, kind: 'inline' },
    ]);
  });
});

describe('ctx.step options', () => {
  const ctx = new WorkflowContext();
  it.each<[string, unknown, unknown, RegExp]>([
    ['an empty name', '', {}, /names the step in the history; got an empty string/],
    [
      'a bad duration',
      'fetch',
      { timeout: '3 days' },
      /ctx\.step\("fetch"\): option "timeout" must be a duration/,
    ],
    ['onUnknown without atMostOnce', 'pay', { onUnknown: 'intervene' }, /onUnknown only applies/],
    ['a global scope without a key', 'bill', { scope: 'global' }, /needs a key shared by the runs/],
    ['a bad retry', 'fetch', { retry: { maxAttempts: 0 } }, /ctx\.step\("fetch"\): retry/],
  ])('refuses %s with a ConfigurationError naming it', (_, name, options, message) => {
    const call = () =>
      (ctx.step as (n: unknown, f: () => Promise<number>, o: unknown) => Promise<number>)(
        name,
        async () => 1,
        options,
      );
    expect(call).toThrow(ConfigurationError);
    expect(call).toThrow(message);
  });

  it('outside a run is a plain call', async () => {
    await expect(ctx.step('plain', async () => 42)).resolves.toBe(42);
  });
});
