import { InvalidArgumentError } from '../../../src/errors/InvalidArgumentError';
import { resolveQueue } from '../../../src/policies/FlowLimits';
import { partitionKeyOf } from '../../../src/runtime/execution/queuePlace';

describe('a queue partition key', () => {
  const tenants = resolveQueue('tenants', {
    partitionBy: (req: { tenantId?: unknown }) => req.tenantId as string,
  });

  it('is what partitionBy returns for the arguments, and null without partitionBy', () => {
    expect(partitionKeyOf(tenants, [{ tenantId: 'acme' }])).toBe('acme');
    expect(partitionKeyOf(resolveQueue('plain'), [{ tenantId: 'acme' }])).toBeNull();
  });

  it.each([
    [undefined, 'got undefined'],
    [null, 'got null'],
    [42, 'got number'],
    ['', 'got 0 characters'],
    ['k'.repeat(256), 'got 256 characters'],
  ])('refuses %s, naming the queue and what partitionBy returned', (tenantId, got) => {
    const attempt = (): unknown => partitionKeyOf(tenants, [{ tenantId }]);
    expect(attempt).toThrow(InvalidArgumentError);
    expect(attempt).toThrow('queue("tenants"): partitionBy()');
    expect(attempt).toThrow(got);
  });
});
