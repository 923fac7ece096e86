import { replaySummary } from '../../../src/cli/replaySummary';
import type { ReplayReport } from '../../../src/runtime/ReplayReport';

const report = (over: Partial<ReplayReport>): ReplayReport => ({
  sourceRunId: 'brief-1',
  runId: 'brief-1:replay-1',
  fromSeq: 1,
  status: { before: 'completed', after: 'completed' },
  result: { before: 'a', after: 'b', changed: true },
  steps: [{ seq: 2, name: 'model:gpt', before: 'x', after: 'y' }],
  modelCalls: { replayed: [1], called: [2] },
  ...over,
});

describe('replaySummary', () => {
  it('says whether the result changed, which steps differ, and the model calls', () => {
    expect(replaySummary(report({}))).toBe(
      'brief-1 → brief-1:replay-1: result changed; 1 step differs (#2 model:gpt); model calls: 1 replayed, 1 called',
    );
  });

  it('names a change of status before the result, and says when no step differs', () => {
    const failed = report({ status: { before: 'completed', after: 'failed' }, steps: [] });
    expect(replaySummary(failed)).toBe(
      'brief-1 → brief-1:replay-1: completed → failed; no step differs; model calls: 1 replayed, 1 called',
    );
  });
});
