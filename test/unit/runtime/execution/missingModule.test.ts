import { ConfigurationError } from 'waymark';
import { Codec } from '../../../../src/codec/Codec';
import { markStoredOutcome } from '../../../../src/errors/storedOutcomeNote';
import { isMissingModule } from '../../../../src/runtime/execution/missingModule';
import { isProcessAbort } from '../../../../src/runtime/execution/processAbort';

/** Node's error for a module it cannot find. */
function notFound(name: string, code = 'MODULE_NOT_FOUND'): Error {
  return Object.assign(new Error(`Cannot find module '${name}'`), { code });
}

const codec = new Codec();

describe('isMissingModule', () => {
  it("is Node's error for a module it cannot find, from require() or import()", () => {
    expect(isMissingModule(notFound('@openai/agents'))).toBe(true);
    expect(isMissingModule(notFound('./plugin.mjs', 'ERR_MODULE_NOT_FOUND'))).toBe(true);
    expect(isProcessAbort(notFound('@openai/agents'))).toBe(true);
  });

  it('is found as the cause of what was thrown', () => {
    const adapter = new ConfigurationError('greeter() needs "greeter"', {
      cause: notFound('greeter'),
    });
    expect(isMissingModule(adapter)).toBe(true);
    expect(isMissingModule(new Error('outer', { cause: adapter }))).toBe(true);
  });

  it('is not an error read back from the store, nor a stored outcome re-thrown', () => {
    const stored = codec.decode(codec.encode(notFound('greeter'), 'error'), 'error');
    expect(stored).toMatchObject({ code: 'MODULE_NOT_FOUND' });
    expect(isMissingModule(stored)).toBe(false);
    expect(isMissingModule(new Error('wrapped here', { cause: stored }))).toBe(false);
    const note = { runId: 'r', status: 'failed', storedAt: new Date(0) } as const;
    expect(isMissingModule(markStoredOutcome(notFound('greeter'), note))).toBe(false);
  });

  it("is not any other error, nor a module error buried past the chain's depth", () => {
    expect(isMissingModule(new Error("Cannot find module 'x'"))).toBe(false);
    expect(isMissingModule(Object.assign(new Error('no'), { code: 'ENOENT' }))).toBe(false);
    expect(isMissingModule('MODULE_NOT_FOUND')).toBe(false);
    expect(isMissingModule(undefined)).toBe(false);
    let deep: unknown = notFound('x');
    for (let i = 0; i < 6; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(isMissingModule(deep)).toBe(false);
  });
});
