import { InvalidArgumentError } from 'waymark';
import { signalKeyOf } from '../../../src/runtime/signalKeyOf';
import { parseSignalRequest } from '../../../src/console/consoleRequests';

describe('signalKeyOf', () => {
  it('takes no options, no key, or a key of 1 to 200 characters', () => {
    expect(signalKeyOf(undefined)).toBeUndefined();
    expect(signalKeyOf({})).toBeUndefined();
    expect(signalKeyOf({ idempotencyKey: 'msg-1' })).toBe('msg-1');
    expect(signalKeyOf({ idempotencyKey: 'k'.repeat(200) })).toHaveLength(200);
  });

  it.each([
    [{ idempotencyKey: '' }, 'signal(): idempotencyKey must be 1 to 200 characters long, got 0'],
    [{ idempotencyKey: null }, 'signal(): idempotencyKey must be a string, got null'],
    [{ idempotencyKey: '\uD800' }, 'signal(): idempotencyKey must be well-formed Unicode'],
    [{ key: 'msg-1' }, 'signal(): options has no option "key"'],
    [null, 'signal(): options must be an object'],
    [['msg-1'], 'signal(): options must be an object'],
  ])('refuses %p', (options, message) => {
    expect(() => signalKeyOf(options as never)).toThrow(InvalidArgumentError);
    expect(() => signalKeyOf(options as never)).toThrow(message);
  });
});

describe('the console signal body', () => {
  it('takes an idempotency key, checked like the runtime checks it', () => {
    expect(parseSignalRequest({ name: 'message', payload: 1, idempotencyKey: 'm1' })).toEqual({
      name: 'message',
      payload: 1,
      idempotencyKey: 'm1',
    });
    expect(() => parseSignalRequest({ name: 'message', idempotencyKey: '' })).toThrow(
      '"idempotencyKey" must be 1 to 200 characters long, got 0',
    );
  });
});
