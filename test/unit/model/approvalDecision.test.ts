import { isInvalidArgumentError } from 'waymark';
import {
  deciderOf,
  decisionOf,
  digestOfRequest,
  digestOfShownRequest,
  REQUEST_DIGEST_CHARS,
} from '../../../src/model/approvalDecision';

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

  it('the digest covers the tool, the call id and the start of the arguments as stored, and their length', () => {
    const stored = (input: unknown, tool = 'refund') =>
      JSON.stringify({ tool, toolCallId: 'call_1', input });
    const digest = digestOfRequest(stored({ amount: 150 }));
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestOfRequest(stored({ amount: 150 }))).toBe(digest);
    expect(digestOfRequest(stored({ amount: 151 }))).not.toBe(digest);
    expect(digestOfRequest(stored({ amount: 150 }, 'charge'))).not.toBe(digest);
    // Beyond what the console reads, only the length counts: it never reads a value whole.
    const long = (tail: string) => stored({ body: 'x'.repeat(5000) + tail });
    expect(digestOfRequest(long('a'))).toBe(digestOfRequest(long('b')));
    expect(digestOfRequest(long('ab'))).not.toBe(digestOfRequest(long('a')));
    // As a bounded read gives it: the start cut where the console cuts, and the length.
    const whole = long('a');
    expect(digestOfShownRequest(whole.slice(0, REQUEST_DIGEST_CHARS), whole.length)).toBe(
      digestOfRequest(whole),
    );
  });

  it('names the decider from decidedBy, else by, else unknown', () => {
    expect(deciderOf({ decidedBy: 'dana', by: 'erin' })).toBe('dana');
    expect(deciderOf({ by: 'erin' })).toBe('erin');
    expect(deciderOf({ approved: true })).toBe('unknown');
    expect(deciderOf(undefined)).toBe('unknown');
  });
});
