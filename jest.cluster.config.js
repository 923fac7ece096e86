/**
 * `npm run test:cluster`: the suites that need replicated databases (a 3-node MariaDB Galera
 * cluster, a PostgreSQL primary and standby), which `scripts/cluster.sh` starts and stops.
 * One file at a time, in name order: they share the machine's two cores and the cluster.
 */
const base = require('./jest.config.js');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/cluster'],
  testPathIgnorePatterns: ['/node_modules/'],
  testSequencer: '<rootDir>/jest.cluster.sequencer.js',
  globalTeardown: '<rootDir>/test/cluster/support/stopClusters.ts',
  testTimeout: 240_000,
  maxWorkers: 1,
};
