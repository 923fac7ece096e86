import { ConfigurationError } from '../../../../../src/errors/ConfigurationError';
import { RefusedTransactionalWriter } from '../../../../../src/runtime/execution/writers/RefusedTransactionalWriter';
import { openMemoryStore, type MemoryStore } from '../memoryRun';
import { stepWrite } from './writers.fixture';

describe('RefusedTransactionalWriter', () => {
  let db: MemoryStore;
  beforeEach(async () => (db = await openMemoryStore()));
  afterEach(() => db.close());

  it('refuses a transactional step before its body runs, naming the step and the fix', async () => {
    const step = stepWrite(await db.claimedRun('tx-refused'), 0);
    const begun = new RefusedTransactionalWriter().begin(step);
    await expect(begun).rejects.toBeInstanceOf(ConfigurationError);
    await expect(begun).rejects.toThrow(/Pay\.charge.*DataSource/s);
  });
});
