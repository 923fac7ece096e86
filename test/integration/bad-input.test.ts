import { container as rootContainer, injectable } from 'tsyringe';
import {
  ConfigurationError,
  InvalidArgumentError,
  MAX_SIGNAL_NAME_LENGTH,
  Step,
  Waymark,
  Workflow,
  WorkflowContext,
  type Logger,
  type WaymarkRuntime,
} from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';

@injectable()
class Identifiers {
  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'bad-input-derived', id: (id: string) => id })
  async derived(id: string): Promise<string> {
    return this.echo(id);
  }

  @Workflow({ name: 'bad-input-wait' })
  async wait(name: string): Promise<unknown> {
    return this.ctx.waitForSignal(name);
  }

  @Workflow({ name: 'bad-input-sleep' })
  async nap(ms: number): Promise<string> {
    await this.ctx.sleep(ms);
    return 'woke';
  }

  @Step()
  async echo(id: string): Promise<string> {
    return `ran ${id.length}`;
  }
}

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const cursorOf = (json: string): string => Buffer.from(json).toString('base64url');

/** Run ids no call may take, each with what the error must say about it. */
const BAD_RUN_IDS: Array<[string, string, RegExp]> = [
  ['empty', '', /must be 1 to 255 characters long, got 0/],
  ['256 characters', 'r'.repeat(256), /must be 1 to 255 characters long, got 256/],
  ['NUL', 'po-\u0000-1', /must not contain the NUL character \(U\+0000\), found at index 3/],
  ['a lone high surrogate', 'po-\uD800', /lone surrogate U\+D800 at index 3/],
  ['a lone low surrogate', '\uDC00po', /lone surrogate U\+DC00 at index 0/],
  ['"."', '.', /must not be "\.": "\." and "\.\." are reserved/],
  ['".."', '..', /must not be "\.\."/],
];

const BAD_SIGNAL_NAMES: Array<[string, string, RegExp]> = [
  ['empty', '', /must be 1 to 200 characters long, got 0/],
  ['201 characters', 's'.repeat(201), /must be 1 to 200 characters long, got 201/],
  ['256 characters', 's'.repeat(256), /got 256/],
  ['NUL', 'appro\u0000val', /NUL character/],
  ['a lone surrogate', 'approval-\uD83D', /lone surrogate U\+D83D/],
];

describe.each<Backend>(['sqlite', 'mariadb', 'postgres'])(
  'bad input is a bad-input error on %s, never "database unavailable"',
  (backend) => {
    let db: TestDatabase;
    let runtime: WaymarkRuntime;
    let waiting: string;

    beforeAll(async () => {
      db = await createTestDatabase(backend);
      runtime = await Waymark.create({
        database: db.url,
        container: rootContainer.createChildContainer(),
        logger: quiet,
      });
      waiting = (await runtime.start(Identifiers, 'wait', ['approval'])).runId;
      for (let i = 0; i < 500 && (await runtime.handle(waiting).status()) !== 'waiting'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(await runtime.handle(waiting).status()).toBe('waiting');
    });
    afterAll(async () => {
      await runtime?.close({ grace: 0 });
      await db?.drop();
    });

    /** Expects `work` to reject with an InvalidArgumentError whose message matches `message`. */
    const refused = async (work: () => Promise<unknown>, message: RegExp): Promise<void> => {
      const error: unknown = await work().then(
        () => new Error('it was accepted'),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message });
    };

    it.each(BAD_RUN_IDS)(
      'refuses a run id that is %s, wherever a run id is taken',
      async (_, id, message) => {
        await refused(() => runtime.signal(id, 'approval', {}), message);
        await refused(async () => runtime.handle(id), message);
        await refused(() => runtime.start(Identifiers, 'derived', ['x'], { runId: id }), message);
        await refused(() => runtime.run(Identifiers, 'derived', [id]), message);
        await refused(() => runtime.fork(waiting, { fromSeq: 0, newRunId: id }), message);
        await refused(() => runtime.history(id), message);
        await refused(() => runtime.retry(id), message);
        await refused(() => runtime.resolveStep(id, 1), message);
        await refused(() => runtime.cancel(id), message);
        await refused(
          () => runtime.list({ cursor: cursorOf(JSON.stringify([1, id])) }),
          /is not one returned by list\(\)/,
        );
      },
    );

    it('takes the longest run id, and tells ids apart by every character', async () => {
      const longest = 'r'.repeat(255);
      await expect(runtime.run(Identifiers, 'derived', [longest])).resolves.toBe('ran 255');
      // A well-formed astral character is fine (a surrogate pair, two code units).
      await expect(runtime.run(Identifiers, 'derived', ['po-\u{1F600}'])).resolves.toBe('ran 5');
      await expect(runtime.run(Identifiers, 'derived', ['po-\uFFFD'])).resolves.toBe('ran 4');
    });

    it.each(BAD_SIGNAL_NAMES)(
      'refuses a signal name that is %s, to send or to wait for',
      async (_, name, message) => {
        await refused(() => runtime.signal(waiting, name, {}), message);
        await refused(() => runtime.run(Identifiers, 'wait', [name]), message);
      },
    );

    it('takes a signal name of exactly the limit, to wait for and to send', async () => {
      const name = 'n'.repeat(MAX_SIGNAL_NAME_LENGTH);
      const handle = await runtime.start(Identifiers, 'wait', [name]);
      for (let i = 0; i < 500 && (await handle.status()) !== 'waiting'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await runtime.signal(handle.runId, name, { ok: true });
      await expect(handle.result()).resolves.toEqual({ ok: true });
    });

    it.each([
      ['a fractional time', '[1.5,"x"]'],
      ['a time beyond BIGINT', '[1e20,"x"]'],
      ['an infinite time', '[1e400,"x"]'],
      ['a negative time', '[-1,"x"]'],
      ['a NUL in the id', '[1,"x\\u0000"]'],
      ['no id', '[1]'],
      ['not an array', '{"createdAt":1}'],
    ])('refuses a hand-made list cursor with %s', async (_, json) => {
      await refused(
        () => runtime.list({ cursor: cursorOf(json) }),
        /^list\(\): cursor "[^"]*" is not one returned by list\(\)$/,
      );
    });

    it('refuses a workflow filter the database cannot compare, and takes a real cursor', async () => {
      await refused(
        () => runtime.list({ workflow: 'a\u0000b' }),
        /list\(\): workflow must not contain the NUL/,
      );
      const first = await runtime.list({ limit: 1 });
      expect(first.nextCursor).toBeDefined();
      const second = await runtime.list({ limit: 1, cursor: first.nextCursor });
      expect(second.runs[0]?.runId).not.toBe(first.runs[0]?.runId);
    });

    it.each([
      [1e300, 'got 1e+300'],
      [9e15, 'got 9000000000000000'],
    ])(
      'fails a workflow that sleeps %p ms with a ConfigurationError, not an outage',
      async (ms, shown) => {
        const error: unknown = await runtime.run(Identifiers, 'nap', [ms]).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ConfigurationError);
        expect((error as Error).message).toContain('sleep() must be a duration of 0 to 100 years');
        expect((error as Error).message).toContain(shown);
      },
    );
  },
);
