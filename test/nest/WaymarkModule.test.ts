import { Inject, Injectable, Module, Scope, type Provider } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  isConfigurationError,
  RuntimeClosedError,
  Step,
  Waymark,
  Workflow,
  WorkflowContext,
  WaymarkRuntime,
} from 'waymark';
import { WaymarkModule, type WaymarkModuleOptions } from 'waymark/nest';
import { createTestDatabase, type TestDatabase } from '../support/databases';

const GREETING = Symbol('Greeting');

@Injectable()
class Greeter {
  constructor(
    @Inject(GREETING) private readonly greeting: string,
    readonly ctx: WorkflowContext,
  ) {}

  @Workflow({ name: 'nest-greet', id: (name: string) => `greet-${name}` })
  async greet(name: string): Promise<string> {
    return `${await this.compose(name)} (run ${this.ctx.runId})`;
  }

  @Step()
  async compose(name: string): Promise<string> {
    return `${this.greeting}, ${name}`;
  }
}

/** A step that waits for the test to let it finish. */
@Injectable()
class Slow {
  static release: () => void = () => undefined;
  static entered: Promise<void>;
  static enter: () => void;

  @Workflow({ name: 'nest-slow', id: (id: string) => `slow-${id}` })
  async work(id: string): Promise<string> {
    return this.hold(id);
  }

  @Step()
  async hold(id: string): Promise<string> {
    Slow.enter();
    await new Promise<void>((resolve) => (Slow.release = resolve));
    return id;
  }
}

/** Not a Nest provider; tsyringe can build it (no constructor parameters). */
class Plain {
  @Workflow({ name: 'nest-plain' })
  async twice(n: number): Promise<number> {
    return n * 2;
  }
}

/** Not a Nest provider, and tsyringe cannot build it: it needs Nest's injection. */
@Injectable()
class Unregistered {
  constructor(@Inject(GREETING) readonly greeting: string) {}

  @Workflow({ name: 'nest-unregistered' })
  async run(): Promise<string> {
    return this.greeting;
  }
}

@Injectable({ scope: Scope.REQUEST })
class PerRequest {
  @Workflow({ name: 'nest-per-request' })
  async run(): Promise<string> {
    return 'never';
  }
}

async function open(
  options: Partial<WaymarkModuleOptions> = {},
  providers: Provider[] = [],
): Promise<TestingModule> {
  const app = await Test.createTestingModule({
    imports: [WaymarkModule.forRoot({ database: 'sqlite::memory:', ...options })],
    providers: [Greeter, Slow, { provide: GREETING, useValue: 'Hello' }, ...providers],
  }).compile();
  return app.init();
}

describe('WaymarkModule', () => {
  const opened: TestingModule[] = [];
  const track = async (app: Promise<TestingModule>): Promise<TestingModule> => {
    opened.push(await app);
    return opened[opened.length - 1];
  };

  afterEach(async () => {
    Slow.release();
    await Promise.all(opened.splice(0).map((app) => app.close()));
  });

  it('provides the runtime and WorkflowContext, and runs workflows on the instance Nest built', async () => {
    const app = await track(open({ worker: false }));
    const runtime = app.get(WaymarkRuntime);
    const greeter = app.get(Greeter);
    expect(greeter.ctx).toBe(app.get(WorkflowContext));

    const compose = jest.spyOn(greeter, 'compose');
    await expect(runtime.run(Greeter, 'greet', ['ada'])).resolves.toBe(
      'Hello, ada (run greet-ada)',
    );
    expect(compose).toHaveBeenCalledTimes(1);
    // A direct call on the Nest-built instance is a durable run too (the open runtime).
    await expect(greeter.greet('bob')).resolves.toBe('Hello, bob (run greet-bob)');
    expect((await runtime.history('greet-bob')).map((s) => s.name)).toEqual(['compose']);
  });

  it('starts a worker when the application bootstraps: a queued run is executed', async () => {
    const app = await track(open({ worker: { pollInterval: '20ms' } }));
    const runtime = app.get(WaymarkRuntime);
    const handle = await runtime.start(Greeter, 'greet', ['ada'], { queue: true });
    await expect(handle.result()).resolves.toBe('Hello, ada (run greet-ada)');
  });

  it('starts no worker with worker: false: a queued run stays pending', async () => {
    const app = await track(open({ worker: false }));
    const handle = await app.get(WaymarkRuntime).start(Greeter, 'greet', ['ada'], { queue: true });
    await new Promise((wake) => setTimeout(wake, 200));
    await expect(handle.status()).resolves.toBe('pending');
  });

  it('builds its options with forRootAsync from providers of the modules it imports', async () => {
    const DATABASE_URL = Symbol('DatabaseUrl');
    @Module({
      providers: [{ provide: DATABASE_URL, useValue: 'sqlite::memory:' }],
      exports: [DATABASE_URL],
    })
    class ConfigModule {}

    const app = await Test.createTestingModule({
      imports: [
        WaymarkModule.forRootAsync({
          imports: [ConfigModule],
          inject: [DATABASE_URL],
          useFactory: async (database: string) => ({ database, worker: false }),
        }),
      ],
      providers: [Greeter, { provide: GREETING, useValue: 'Hi' }],
    }).compile();
    opened.push(await app.init());
    await expect(app.get(WaymarkRuntime).run(Greeter, 'greet', ['ada'])).resolves.toBe(
      'Hi, ada (run greet-ada)',
    );
  });

  it('closes the runtime when the application closes, handing a run in flight over', async () => {
    const db: TestDatabase = await createTestDatabase('sqlite-file');
    try {
      const app = await open({ database: db.url, worker: false, shutdownGrace: '50ms' });
      const runtime = app.get(WaymarkRuntime);
      Slow.entered = new Promise((resolve) => (Slow.enter = resolve));
      const handle = await runtime.start(Slow, 'work', ['a']);
      await Slow.entered;
      await expect(handle.status()).resolves.toBe('running');
      await app.close();
      await expect(runtime.start(Greeter, 'greet', ['ada'])).rejects.toThrow(RuntimeClosedError);

      const observer = await Waymark.create({ database: db.url });
      try {
        const run = await observer.handle('slow-a').describe();
        expect({ status: run.status, owner: run.owner }).toEqual({
          status: 'pending',
          owner: null,
        });
      } finally {
        await observer.close();
      }
    } finally {
      Slow.release();
      await db.drop();
    }
  });

  it('builds a workflow class Nest does not know through tsyringe, when tsyringe can', async () => {
    const app = await track(open({ worker: false }));
    await expect(app.get(WaymarkRuntime).run(Plain, 'twice', [21])).resolves.toBe(42);
  });

  it('names a workflow class that is neither a Nest provider nor buildable by tsyringe', async () => {
    const app = await track(open({ worker: false }));
    const error: unknown = await app
      .get(WaymarkRuntime)
      .start(Unregistered, 'run', [])
      .catch((e: unknown) => e);
    expect(isConfigurationError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^Unregistered is not a provider of this Nest application.*add Unregistered to the providers of a module/,
    );
  });

  it('refuses a request-scoped workflow class: a resumed run has no request', async () => {
    const app = await track(open({ worker: false }, [PerRequest]));
    const error: unknown = await app
      .get(WaymarkRuntime)
      .start(PerRequest, 'run', [])
      .catch((e: unknown) => e);
    expect(isConfigurationError(error)).toBe(true);
    expect((error as Error).message).toMatch(/^PerRequest is a request-scoped or transient/);
  });

  it('rejects wrong module options at startup', async () => {
    await expect(open({ shutdownGrace: '3 days' as never })).rejects.toThrow(
      /WaymarkModule: shutdownGrace must be a duration of 0 to 100 years/,
    );
    await expect(open({ worker: 5 as never })).rejects.toThrow(
      /WaymarkModule: worker must be false or worker options/,
    );
  });
});
