import { verifyStreamToken } from '../../../src/console/verifyStreamToken';
import { StreamTokens } from '../../../src/runtime/streams/StreamTokens';
import { FakeClock } from '../../../src/testing/FakeClock';

const SECRET = 'a-stream-token-secret-of-32-chars!';

/** Tokens on a fake clock, and a check of them at that clock's now; null: no secret given. */
function streamTokens(secret: string | null = SECRET) {
  const clock = new FakeClock();
  const tokens = StreamTokens.of(secret ?? undefined, clock);
  const sign = tokens.sign.bind(tokens);
  const verify = (token: unknown, runId: string, name: string): boolean =>
    verifyStreamToken(token, runId, name, sign, clock.now());
  return { clock, tokens, sign, verify };
}

describe('stream tokens', () => {
  it('read the run and stream they were made for until they expire', async () => {
    const { clock, tokens, verify } = streamTokens();
    const token = tokens.sign('po-1', 'llm', { expiresIn: '10m' });
    expect(token).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    expect(verify(token, 'po-1', 'llm')).toBe(true);
    await clock.advance('9m');
    expect(verify(token, 'po-1', 'llm')).toBe(true);
    await clock.advance('1m');
    expect(verify(token, 'po-1', 'llm')).toBe(false);
  });

  it('refuse another run, another stream, a tampered expiry or signature, and another secret', () => {
    const { tokens, verify, clock } = streamTokens();
    const token = tokens.sign('po-1', 'llm');
    expect(verify(token, 'po-2', 'llm')).toBe(false);
    expect(verify(token, 'po-1', 'log')).toBe(false);
    // The JSON-encoded signed text keeps "po-1" + "llm" apart from "po-1l" + "lm".
    expect(verify(token, 'po-1l', 'lm')).toBe(false);
    const [expiry, signature] = token.split('.');
    expect(verify(`${Number(expiry) + 3600}.${signature}`, 'po-1', 'llm')).toBe(false);
    const flipped =
      signature.slice(0, -2) + (signature.at(-2) === 'A' ? 'B' : 'A') + signature.at(-1);
    expect(verify(`${expiry}.${flipped}`, 'po-1', 'llm')).toBe(false);
    for (const malformed of ['', 'x', `${expiry}.`, `${expiry}.${signature}=`, 42, undefined]) {
      expect(verify(malformed, 'po-1', 'llm')).toBe(false);
    }
    expect(verify(token, '', 'llm')).toBe(false);
    const other = StreamTokens.of(`${SECRET}-other`, clock);
    expect(verifyStreamToken(token, 'po-1', 'llm', other.sign.bind(other), clock.now())).toBe(
      false,
    );
    expect(streamTokens().verify(token, 'po-1', 'llm')).toBe(true);
  });

  it('are only accepted by this process without a configured secret', () => {
    const token = streamTokens(null).sign('po-1', 'llm', {});
    expect(streamTokens(null).verify(token, 'po-1', 'llm')).toBe(false);
  });

  it('refuse a short secret and a bad expiry, run id or stream name', () => {
    expect(() => streamTokens('short')).toThrow(
      'streamTokenSecret must be a string of at least 32 characters',
    );
    const { sign } = streamTokens();
    expect(() => sign('po-1', 'llm', { expiresIn: '3 days' as '3d' })).toThrow('expiresIn');
    expect(() => sign('po-1', 'llm', { expiresIn: '1h', expiresAt: new Date() })).toThrow(
      'expiresAt must be a valid Date, and not given with expiresIn',
    );
    expect(() => sign('', 'llm', {})).toThrow('streamToken(): runId');
    expect(() => sign('po-1', '', {})).toThrow('streamToken(): name');
  });
});
