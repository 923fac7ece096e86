/** Jest runs TypeScript through SWC (legacy decorators with metadata, as tsc emits them). */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
};

/** @type {import('jest').Config} */
module.exports = {
  // Node's, and a test file that prints a waymark warning fails (see the environment's file).
  testEnvironment: '<rootDir>/test/support/WarningCheckingEnvironment.ts',
  roots: ['<rootDir>/test', '<rootDir>/examples'],
  testMatch: ['**/*.test.ts'],
  // The replicated-database suites start clusters of their own: `npm run test:cluster`.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/cluster/'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: {
    '^waymark$': '<rootDir>/src/index.ts',
    '^waymark/testing$': '<rootDir>/src/testing/index.ts',
    '^waymark/otel$': '<rootDir>/src/otel/index.ts',
    '^waymark/nest$': '<rootDir>/src/nest/index.ts',
    '^waymark/console$': '<rootDir>/src/console/index.ts',
    '^waymark/ai$': '<rootDir>/src/ai/index.ts',
    '^waymark/migrations$': '<rootDir>/src/migrations/index.ts',
    '^waymark/mcp$': '<rootDir>/src/mcp/index.ts',
  },
  setupFiles: ['reflect-metadata'],
  testTimeout: 60000,
  maxWorkers: 2,
};
