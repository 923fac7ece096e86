import { cluster } from './clusterScript';

/**
 * Jest's global teardown for the cluster suites: stops every server `scripts/cluster.sh`
 * started and deletes their data, also when a suite failed or jest was run directly rather
 * than through `npm run test:cluster` (whose own trap does the same on any exit).
 */
export default async function stopClusters(): Promise<void> {
  await cluster('stop');
}
