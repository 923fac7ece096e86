import { hashConsoleToken, parseConsoleTokens } from '../../../src/console';

const A = hashConsoleToken('first-token-0123456789');
const B = hashConsoleToken('second-token-0123456789');

describe('parseConsoleTokens', () => {
  it('reads role:sha256hex[:name] per line or word, skipping comments and blank lines', () => {
    const text = `# the console's tokens\noperator:${A}:dana\n\n  viewer:${B.toUpperCase()}  # desk\n`;
    expect(parseConsoleTokens(text, 'tokens')).toEqual([
      { role: 'operator', sha256: A, name: 'dana' },
      { role: 'viewer', sha256: B, name: `viewer-${B.slice(0, 8)}` },
    ]);
    expect(parseConsoleTokens(`admin:${A}:root, viewer:${B}:desk`, 'env')).toHaveLength(2);
  });

  it('names the line and what is wrong, never accepting a token in the clear', () => {
    expect(() => parseConsoleTokens(`\nroot:${A}`, 'tokens.txt')).toThrow(
      'tokens.txt, line 2: role must be one of viewer, operator, admin, got "root"',
    );
    expect(() => parseConsoleTokens('viewer:first-token-0123456789', 'f')).toThrow(
      'f, line 1: the token must be given as its SHA-256 hash',
    );
    expect(() => parseConsoleTokens(`viewer:${A}:na/me`, 'f')).toThrow('f, line 1: the name must');
    expect(() => parseConsoleTokens(`viewer:${A}:a:b`, 'f')).toThrow(
      'expected role:sha256hex[:name]',
    );
    expect(() => parseConsoleTokens('viewer', 'f')).toThrow('expected role:sha256hex[:name]');
  });

  it('hashes a token as sha256sum does, trimmed', () => {
    // printf %s abc | sha256sum
    expect(hashConsoleToken(' abc\n')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
