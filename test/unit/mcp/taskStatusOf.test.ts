import { RUN_STATUSES, type RunStatus } from 'waymark';
import { taskStatusOf, type McpTaskStatus } from 'waymark/mcp';

describe('taskStatusOf', () => {
  const cases: [RunStatus, string | null, McpTaskStatus][] = [
    ['pending', null, 'working'],
    ['running', null, 'working'],
    ['waiting', 'sleep', 'working'],
    ['waiting', 'retry', 'working'],
    ['waiting', 'signal:approval', 'input_required'],
    ['waiting', 'signal:approve:call-7', 'input_required'],
    ['needs_attention', null, 'input_required'],
    ['completed', null, 'completed'],
    ['failed', null, 'failed'],
    ['cancelled', null, 'cancelled'],
  ];

  it.each(cases)('maps a %s run waiting for %s to %s', (status, waitingFor, expected) => {
    expect(taskStatusOf({ status, waitingFor })).toBe(expected);
  });

  it('maps every run status', () => {
    const mapped = new Set(cases.map(([status]) => status));
    expect([...mapped].sort()).toEqual([...RUN_STATUSES].sort());
  });
});
