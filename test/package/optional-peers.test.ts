import { printOutcome, runWithoutPackages } from '../support/withoutPackages';

const AGENTS = ['@openai/agents', '@openai/agents-core', '@openai/agents-openai'];
const MCP = ['@modelcontextprotocol/sdk', '@ai-sdk/mcp'];
const ALL = ['ai', '@opentelemetry/api', ...AGENTS, ...MCP];

/** What an application imports first: waymark's decorators need the metadata polyfill. */
const POLYFILL = "require('reflect-metadata');";

/** An object that passes for an AI SDK 6 language model. */
const FAKE_MODEL =
  "{ specificationVersion: 'v3', provider: 'fake', modelId: 'fake', supportedUrls: {}, " +
  'doGenerate: async () => ({}), doStream: async () => ({}) }';

describe('the adapters load their optional packages when they are made', () => {
  it('importing waymark/ai and waymark/otel loads none of them', async () => {
    const script = printOutcome(
      `${POLYFILL} require('./src/ai/index.ts'); require('./src/otel/index.ts');`,
    );
    await expect(runWithoutPackages(ALL, script)).resolves.toBe('ok');
  });

  it('durableModelProvider() names @openai/agents when neither it nor its core is installed', async () => {
    const script = printOutcome(
      `${POLYFILL} require('./src/ai/index.ts').durableModelProvider({ getModel: async () => ({}) });`,
    );
    await expect(runWithoutPackages(AGENTS, script)).resolves.toBe(
      'ConfigurationError: durableModelProvider() needs the package "@openai/agents" (an ' +
        'optional peer dependency of waymark), or "@openai/agents-core"; neither is installed: ' +
        'npm install @openai/agents',
    );
  });

  it('durableModelProvider() takes @openai/agents-core alone', async () => {
    const script = printOutcome(
      `${POLYFILL} require('./src/ai/index.ts').durableModelProvider({ getModel: async () => ({}) });`,
    );
    await expect(runWithoutPackages(['@openai/agents'], script)).resolves.toBe('ok');
  });

  it('durableModel() names ai', async () => {
    const script = printOutcome(
      `${POLYFILL} require('./src/ai/index.ts').durableModel(${FAKE_MODEL});`,
    );
    await expect(runWithoutPackages(['ai'], script)).resolves.toBe(
      'ConfigurationError: durableModel() needs the package "ai" (an optional peer dependency ' +
        'of waymark), which is not installed: npm install ai',
    );
  });

  it.each([
    ['traceRuns()', 'otel.traceRuns({})'],
    ['meterRuns()', 'otel.meterRuns({})'],
    ['TracingStepInterceptor', 'new otel.TracingStepInterceptor()'],
  ])('%s names @opentelemetry/api', async (user, call) => {
    const script = printOutcome(
      `${POLYFILL} const otel = require('./src/otel/index.ts'); ${call};`,
    );
    await expect(runWithoutPackages(['@opentelemetry/api'], script)).resolves.toBe(
      `ConfigurationError: ${user} needs the package "@opentelemetry/api" (an optional peer ` +
        'dependency of waymark), which is not installed: npm install @opentelemetry/api',
    );
  });

  it('importing waymark/mcp and the CLI loads no MCP package; createMcpServer() names the SDK', async () => {
    await expect(
      runWithoutPackages(
        MCP,
        printOutcome(`${POLYFILL} require('./src/mcp/index.ts'); require('./src/cli/main.ts');`),
      ),
    ).resolves.toBe('ok');
    const script = printOutcome(`${POLYFILL} require('./src/mcp/index.ts').createMcpServer({});`);
    await expect(runWithoutPackages(MCP, script)).resolves.toBe(
      'ConfigurationError: createMcpServer() needs the package "@modelcontextprotocol/sdk" (an ' +
        'optional peer dependency of waymark), which is not installed: npm install ' +
        '@modelcontextprotocol/sdk',
    );
  });

  describe('mcpTools()', () => {
    /** A client with one tool, `echo`, in memory: what mcpTools() calls on an SDK `Client`. */
    const CLIENT =
      "{ listTools: async () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }), " +
      'callTool: async ({ arguments: input }) => ({ content: [{ type: "text", text: JSON.stringify(input) }] }) }';
    const script = `${POLYFILL}
      (async () => {
        const tools = await require('./src/ai/index.ts').mcpTools(${CLIENT});
        const output = await tools.echo.execute({ a: 1 }, { toolCallId: 'call_1', messages: [] });
        console.log(output.content[0].text);
      })().catch((error) => console.log(error.name + ': ' + error.message));`;

    it('needs no MCP package: it calls the client it is given', async () => {
      await expect(runWithoutPackages(MCP, script)).resolves.toBe('{"a":1}');
    });

    it('names ai', async () => {
      await expect(runWithoutPackages(['ai'], script)).resolves.toBe(
        'ConfigurationError: mcpTools() needs the package "ai" (an optional peer dependency ' +
          'of waymark), which is not installed: npm install ai',
      );
    });
  });
});
