import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import Module from 'node:module';
import { join } from 'node:path';
import { container as rootContainer, injectable, type DependencyContainer } from 'tsyringe';
import { ConfigurationError, Retry, Step, Waymark, Workflow, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { ABANDONED_RUNS, RecordingLogger } from '../support/RecordingLogger';

/**
 * Node's own loader, with its own "Cannot find module" error: jest's `require` (and its
 * `createRequire`) would remember that the file was missing after it was written.
 */
const nodeRequire = (id: string): unknown =>
  (Module as unknown as { _load(id: string, parent: null, isMain: boolean): unknown })._load(
    id,
    null,
    false,
  );

/** Where the plugin a deployment forgot lives; it is "installed" by writing the file. */
let pluginDir: string;
const pluginPath = (name: string): string => join(pluginDir, `${name}.js`);
const install = (name: string): void =>
  writeFileSync(pluginPath(name), 'exports.greet = (who) => `hello ${who}`;');

@injectable()
class Plugins {
  /** Each body that ran to the end, by step. */
  static completed: string[] = [];

  @Retry({ maxAttempts: 3, backoff: { initial: '1ms' } })
  @Step()
  async greet(plugin: string, who: string): Promise<string> {
    const loaded = nodeRequire(pluginPath(plugin)) as { greet(who: string): string };
    Plugins.completed.push(`greet ${plugin}`);
    return loaded.greet(who);
  }

  @Step()
  async greetThroughAdapter(plugin: string, who: string): Promise<string> {
    let loaded: { greet(who: string): string };
    try {
      loaded = nodeRequire(pluginPath(plugin)) as typeof loaded;
    } catch (cause) {
      // What an adapter made inside a step throws: the missing package is its cause.
      throw new ConfigurationError(`greeter() needs the package "${plugin}"`, { cause });
    }
    return loaded.greet(who);
  }

  @Workflow({ name: 'missing-module-greet', id: (plugin: string) => `greet:${plugin}` })
  async run(plugin: string): Promise<string> {
    return `${await this.greet(plugin, 'ada')}!`;
  }

  @Workflow({ name: 'missing-module-fallback', id: (plugin: string) => `fallback:${plugin}` })
  async runOrFallBack(plugin: string): Promise<string> {
    try {
      return await this.greetThroughAdapter(plugin, 'ada');
    } catch {
      return 'fallback';
    }
  }

  @Workflow({ name: 'missing-module-body', id: (plugin: string) => `body:${plugin}` })
  async loadInWorkflowCode(plugin: string): Promise<string> {
    const loaded = nodeRequire(pluginPath(plugin)) as { greet(who: string): string };
    return loaded.greet('ada');
  }
}

const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

describe.each(BACKENDS)('a module that cannot be found, on %s', (backend) => {
  let db: TestDatabase;
  let scope: DependencyContainer;
  let log: RecordingLogger;
  let runtime: WaymarkRuntime;
  let n = 0;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    pluginDir = mkdtempSync(join(tmpdir(), 'waymark-plugins-'));
  });
  afterAll(async () => {
    await db.drop();
    rmSync(pluginDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    scope = rootContainer.createChildContainer();
    Plugins.completed = [];
    // A runtime that closes with runs a missing module left running says so (once per process).
    log = new RecordingLogger([ABANDONED_RUNS]);
    runtime = await Waymark.create({ database: db.url, container: scope, logger: log });
  });
  afterEach(async () => {
    await runtime.close();
    expect(log.unexpected()).toEqual([]);
  });

  const plugins = (): Plugins => scope.resolve(Plugins);
  const plugin = (): string => `${backend}-plugin-${++n}`;

  /** Installs `name`, then restarts the runtime as a deployment would. */
  const installAndRestart = async (name: string): Promise<void> => {
    install(name);
    await runtime.close();
    runtime = await Waymark.create({ database: db.url, container: scope, logger: log });
  };

  it('in a step body is not its outcome: nothing is recorded, and once installed the run completes', async () => {
    const name = plugin();
    const runId = `greet:${name}`;
    await expect(plugins().run(name)).rejects.toMatchObject({
      code: 'MODULE_NOT_FOUND',
      message: expect.stringContaining(`Cannot find module '${pluginPath(name)}'`),
    });
    // No attempt spent on it, no step record, no run outcome: resumable as it stands.
    await expect(runtime.handle(runId).status()).resolves.toBe('running');
    await expect(runtime.history(runId)).resolves.toEqual([]);

    await installAndRestart(name);
    await expect(plugins().run(name)).resolves.toBe('hello ada!');
    expect(Plugins.completed).toEqual([`greet ${name}`]);
    const history = await runtime.history(runId);
    expect(history).toMatchObject([{ name: 'greet', status: 'completed', attempts: 1 }]);
    // The runtime that resumed the run by calling it had nothing to say about it.
    await runtime.close();
    expect(log.abandoned()).toEqual([]);
  });

  it('as the cause of an error stops the run, though the workflow catches it', async () => {
    const name = plugin();
    const runId = `fallback:${name}`;
    const thrown = await plugins()
      .runOrFallBack(name)
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as Error).cause).toMatchObject({ code: 'MODULE_NOT_FOUND' });
    await expect(runtime.handle(runId).status()).resolves.toBe('running');
    await expect(runtime.history(runId)).resolves.toEqual([]);

    await installAndRestart(name);
    await expect(plugins().runOrFallBack(name)).resolves.toBe('hello ada');
  });

  it('in workflow code leaves the run resumable too', async () => {
    const name = plugin();
    const runId = `body:${name}`;
    await expect(plugins().loadInWorkflowCode(name)).rejects.toMatchObject({
      code: 'MODULE_NOT_FOUND',
    });
    await expect(runtime.handle(runId).status()).resolves.toBe('running');

    await installAndRestart(name);
    await expect(plugins().loadInWorkflowCode(name)).resolves.toBe('hello ada');
  });
});
