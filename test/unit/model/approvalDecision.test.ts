import { isInvalidArgumentError } from 'waymark';
import { deciderOf, decisionOf, digestOfRequest } from '../../../src/model/approvalDecision';

describe('approval decisions', () => {
  it('only approve:<request> signals are decisions, with the wait and digest their payload names', () => {
    expect(decisionOf('approval', { approved: true })).toBeUndefined();
    expect(decisionOf('approve:call_1', undefined)).toMatchObject({
      requestStep: 'approval-request',
    });
    const bound = decisionOf('approve:call_1', { approved: true, waitSeq: 4, digest: 'ab' });
    expect(bound).toMatchObject({ waitSeq: 4, digest: 'ab' });
  });

  it('a malformed waitSeq or digest is refused as bad input, naming the field', () => {
    for (const payload of [{ waitSeq: -1 }, { waitSeq: '4' }, { waitSeq: 1.5 }, { digest: 7 }]) {
      let error: unknown;
      try {
        decisionOf('approve:call_1', payload);
      } catch (thrown) {
        error = thrown;
      }
      expect(isInvalidArgumentError(error)).toBe(true);
      expect((error as Error).message).toMatch(/payload\.(waitSeq|digest) of "approve:call_1"/);
    }
  });

  it('the digest covers the tool, the call id and the arguments as stored', () => {
    const stored = (input: unknown, tool = 'refund') =>
      JSON.stringify({ tool, toolCallId: 'call_1', input });
    const digest = digestOfRequest(stored({ amount: 150 }));
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestOfRequest(stored({ amount: 150 }))).toBe(digest);
    expect(digestOfRequest(stored({ amount: 151 }))).not.toBe(digest);
    expect(digestOfRequest(stored({ amount: 150 }, 'charge'))).not.toBe(digest);
    expect(digestOfRequest('not json')).toBeUndefined();
  });

  it('names the decider from decidedBy, else by, else unknown', () => {
    expect(deciderOf({ decidedBy: 'dana', by: 'erin' })).toBe('dana');
    expect(deciderOf({ by: 'erin' })).toBe('erin');
    expect(deciderOf({ approved: true })).toBe('unknown');
    expect(deciderOf(undefined)).toBe('unknown');
  });
});
