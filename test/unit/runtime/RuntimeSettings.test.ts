import { ConfigurationError } from '../../../src/errors/ConfigurationError';
import { resolveSettings } from '../../../src/runtime/RuntimeSettings';
import type { RuntimeOptions } from '../../../src/runtime/RuntimeOptions';

const database = 'sqlite::memory:';

/** Options as a JavaScript caller (or a config file) may pass them, past the types. */
const untyped = (groupCommit: unknown): RuntimeOptions =>
  ({ database, groupCommit }) as unknown as RuntimeOptions;

describe('resolveSettings: groupCommit', () => {
  it('is on by default, with 500 rows and 4 MiB per commit', () => {
    const bounds = { maxRows: 500, maxBytes: 4 * 1024 * 1024 };
    expect(resolveSettings({ database }).groupCommit).toEqual(bounds);
    expect(resolveSettings({ database, groupCommit: true }).groupCommit).toEqual(bounds);
  });

  it('is off with false: each checkpoint commits alone', () => {
    expect(resolveSettings({ database, groupCommit: false }).groupCommit).toBeNull();
  });

  it('takes the bounds given, and the default for one left out', () => {
    expect(resolveSettings({ database, groupCommit: { maxRows: 8 } }).groupCommit).toEqual({
      maxRows: 8,
      maxBytes: 4 * 1024 * 1024,
    });
    expect(resolveSettings({ database, groupCommit: { maxBytes: 2048 } }).groupCommit).toEqual({
      maxRows: 500,
      maxBytes: 2048,
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['maxRows: 0', { maxRows: 0 }, /groupCommit\.maxRows must be an integer ≥ 1, got 0/],
    ['maxRows: 2.5', { maxRows: 2.5 }, /groupCommit\.maxRows must be an integer ≥ 1, got 2\.5/],
    ["maxBytes: 'x'", { maxBytes: 'x' }, /groupCommit\.maxBytes must be an integer ≥ 1024, got x/],
    ['maxBytes: 10', { maxBytes: 10 }, /groupCommit\.maxBytes must be an integer ≥ 1024, got 10/],
    ["'yes'", 'yes', /groupCommit must be true, false or \{ maxRows, maxBytes \}, got yes/],
    ['null', null, /groupCommit must be true, false or \{ maxRows, maxBytes \}, got null/],
    ['1', 1, /groupCommit must be true, false or \{ maxRows, maxBytes \}, got 1/],
  ])('groupCommit %s is a ConfigurationError naming the option', (_, option, message) => {
    const resolve = () => resolveSettings(untyped(option));
    expect(resolve).toThrow(ConfigurationError);
    expect(resolve).toThrow(message);
  });
});
