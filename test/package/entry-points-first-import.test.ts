import { printOutcome, runWithoutPackages } from '../support/withoutPackages';

/** Every optional peer: an entry point must load without them, as the peers' own tests say. */
const PEERS = [
  'ai',
  '@opentelemetry/api',
  '@openai/agents',
  '@openai/agents-core',
  '@openai/agents-openai',
  '@modelcontextprotocol/sdk',
  '@ai-sdk/mcp',
];

/**
 * An OpenTelemetry setup loaded with `node --require ./instrumentation.js`, or a test file
 * whose first import is `waymark/testing`, loads that entry point before the application's
 * `import 'reflect-metadata'`. tsyringe throws at load without the polyfill, so each entry
 * point brings it, as `waymark` does.
 */
describe('an entry point loaded before anything else', () => {
  it.each([
    'index',
    'ai/index',
    'otel/index',
    'testing/index',
    'console/index',
    'migrations/index',
    'mcp/index',
  ])('src/%s.ts loads without reflect-metadata imported first', async (entry) => {
    const script = printOutcome(`require('./src/${entry}.ts');`);
    await expect(runWithoutPackages(PEERS, script)).resolves.toBe('ok');
  });
});
