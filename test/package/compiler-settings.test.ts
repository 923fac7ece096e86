import { ConfigurationError } from 'waymark';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import {
  COMPILERS,
  compileWithTsc,
  removeTscWorkspace,
  type Compiler,
} from './support/compileWithTsc';

afterAll(removeTscWorkspace);

/** An agent as a user writes it; `variant` makes class and workflow names unique per compile. */
function agentSource(
  variant: string,
  { injectable = true, inject = false }: { injectable?: boolean; inject?: boolean } = {},
): string {
  return `
import { ${inject ? 'inject, ' : ''}injectable } from 'tsyringe';
import { Step, Workflow, WorkflowContext } from 'waymark';

${injectable ? '@injectable()' : ''}
export class SupportAgent${variant} {
  constructor(${inject ? '@inject(WorkflowContext) ' : ''}private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'support-${variant}' })
  async handle(ticket: string): Promise<string> {
    return this.answer(ticket);
  }

  @Step()
  async answer(ticket: string): Promise<string> {
    return 'answered ' + ticket + ' in ' + this.ctx.runId;
  }
}
`;
}

type AgentClass = new (...args: any[]) => { handle(ticket: string): Promise<string> };

function load(file: string, variant: string): AgentClass {
  return jest.requireActual<Record<string, AgentClass>>(file)[`SupportAgent${variant}`];
}

describe.each(Object.keys(COMPILERS) as Compiler[])('code compiled by %s', (compiler) => {
  const tag = compiler.replace(/\W+/g, '');
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime();
  });
  afterAll(() => runtime.close());

  it('without "experimentalDecorators", fails at class definition naming both settings', () => {
    const variant = `Standard${tag}`;
    const compiled = compileWithTsc(compiler, { 'agent.ts': agentSource(variant) }, {});
    expect(compiled.output).toContain('TS1241'); // what tsc itself says
    const loading = () => load(compiled.emitted('agent.ts'), variant);
    expect(loading).toThrow(ConfigurationError);
    expect(loading).toThrow(
      '@Workflow on handle was called as a standard (TC39) method decorator: the code was ' +
        'compiled without "experimentalDecorators". waymark, like tsyringe and TypeORM, needs ' +
        'TypeScript\'s legacy decorators: set "experimentalDecorators": true and ' +
        '"emitDecoratorMetadata": true in the compilerOptions of tsconfig.json',
    );
  });

  describe('with "experimentalDecorators" but without "emitDecoratorMetadata"', () => {
    const plain = `NoMetadata${tag}`;
    const injected = `Injected${tag}`;
    let compiled: ReturnType<typeof compileWithTsc>;
    beforeAll(() => {
      compiled = compileWithTsc(
        compiler,
        {
          'plain.ts': agentSource(plain),
          'injected.ts': agentSource(injected, { inject: true }),
        },
        { experimentalDecorators: true },
      );
    });

    it('compiles cleanly', () => {
      expect(compiled.output).toBe('');
      expect(compiled.status).toBe(0);
    });

    it('a workflow class that waymark resolves fails with the settings to change', async () => {
      const Agent = load(compiled.emitted('plain.ts'), plain);
      const starting = runtime.start(Agent, 'handle', ['t1']);
      await expect(starting).rejects.toThrow(ConfigurationError);
      await expect(starting).rejects.toThrow(
        `cannot build SupportAgent${plain} to run its workflow (tsyringe: TypeInfo not known ` +
          `for "SupportAgent${plain}"): the code was compiled without decorator metadata, so ` +
          `tsyringe cannot see the types of SupportAgent${plain}'s constructor parameters. Set ` +
          '"emitDecoratorMetadata": true beside "experimentalDecorators": true in tsconfig.json',
      );
      await expect(starting).rejects.toThrow(
        'compilers that cannot emit it (tsx, esbuild) need a token on every constructor ' +
          'parameter instead: constructor(@inject(WorkflowContext) private readonly ctx: WorkflowContext)',
      );
    });

    it('@inject(WorkflowContext) on the parameter is enough, as the README says', async () => {
      const Agent = load(compiled.emitted('injected.ts'), injected);
      await expect(runtime.run(Agent, 'handle', ['t1'], { runId: `r-${injected}` })).resolves.toBe(
        `answered t1 in r-${injected}`,
      );
    });
  });

  it('with both settings but no @injectable(), says @injectable() is missing', async () => {
    const variant = `NotInjectable${tag}`;
    const compiled = compileWithTsc(
      compiler,
      { 'agent.ts': agentSource(variant, { injectable: false }) },
      { experimentalDecorators: true, emitDecoratorMetadata: true },
    );
    expect(compiled.output).toBe('');
    const Agent = load(compiled.emitted('agent.ts'), variant);
    await expect(runtime.start(Agent, 'handle', ['t1'])).rejects.toThrow(
      `SupportAgent${variant} has constructor parameters but no @injectable(): decorate it ` +
        "with @injectable() from tsyringe, or register it in the runtime's container",
    );
  });
});
