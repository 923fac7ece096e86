import '../../../src/codec/waymarkErrorClasses';
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { ConfigurationError } from '../../../src/errors/ConfigurationError';
import { CorruptValueError, isCorruptValueError } from '../../../src/errors/CorruptValueError';
import { SerializationError } from '../../../src/errors/SerializationError';
import { Codec } from '../../../src/codec/Codec';
import { encodeErrorAsStored } from '../../../src/codec/errorSnapshot';
import { findErrorClass, registerErrorClasses } from '../../../src/codec/ErrorClassRegistry';

const codec = new Codec();
const MIB = 1_048_576;

function roundTrip(value: unknown, path = 'result'): any {
  return codec.decode(codec.encode(value, path), path);
}

function encodeError(value: unknown, path = 'result'): unknown {
  try {
    codec.encode(value, path);
  } catch (error) {
    return error;
  }
  throw new Error('expected encode to throw');
}

function expectSameError(actual: any, expected: any): void {
  expect(actual).toBeInstanceOf(Error);
  expect(actual.name).toBe(expected.name);
  expect(actual.message).toBe(expected.message);
  expect(actual.stack).toBe(expected.stack);
  expect(actual.code).toEqual(expected.code);
  expect('cause' in actual).toBe('cause' in expected);
  expect({ ...actual }).toEqual({ ...expected });
}

class Client {
  constructor(readonly url = 'https://erp.example') {}
  fetch(): string {
    return this.url;
  }
}

describe('plain JSON values', () => {
  const plain: unknown[] = [
    0,
    -12.5,
    'text with "quotes" and ünïcödé',
    true,
    null,
    [],
    {},
    { a: 1, b: [1, '2', { c: null, d: false }], e: { f: { g: 'h' } } },
  ];

  it.each(plain)('%j encodes to exactly what JSON.stringify writes', (value) => {
    expect(codec.encode(value, 'result')).toBe(JSON.stringify(value));
  });

  it.each(plain)('%j reads back equal', (value) => {
    expect(roundTrip(value)).toEqual(value);
  });

  it('a null-prototype object is stored as plain JSON and reads back with the same keys', () => {
    const value = Object.assign(Object.create(null), { a: 1, b: 'two' });
    expect(codec.encode(value, 'result')).toBe('{"a":1,"b":"two"}');
    expect(roundTrip(value)).toEqual({ a: 1, b: 'two' });
  });

  it('a key named __proto__ reads back as an ordinary key, not a prototype', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"n":1}');
    value.at = new Date(0);
    const read = roundTrip(value);
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.hasOwn(read, '__proto__')).toBe(true);
    expect(read['__proto__']).toEqual({ polluted: true });
    expect(read.at).toEqual(new Date(0));
    expect(({} as any).polluted).toBeUndefined();
  });

  it('a class instance whose classes define no methods is stored as its own data', () => {
    class Base {
      constructor(readonly id: string) {}
    }
    class Point extends Base {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {
        super('p');
      }
    }
    const text = codec.encode(new Point(1, 2), 'result');
    expect(text).toBe('{"id":"p","x":1,"y":2}');
    const read = codec.decode(text, 'result');
    expect(read).toEqual({ id: 'p', x: 1, y: 2 });
    expect(read).not.toBeInstanceOf(Point);
  });

  it('symbol keys are left out like JSON.stringify leaves them out', () => {
    expect(codec.encode({ [Symbol('hidden')]: 1, a: 1 }, 'result')).toBe('{"a":1}');
  });

  it('an object reached twice without a cycle reads back as two equal copies', () => {
    const shared = { at: new Date(5) };
    const read = roundTrip({ a: shared, b: [shared] });
    expect(read).toEqual({ a: shared, b: [shared] });
    expect(read.a).not.toBe(read.b[0]);
  });
});

describe('undefined and sparse arrays', () => {
  it('undefined at the top level reads back as undefined', () => {
    expect(codec.encode(undefined, 'result')).toBe('{"$wm":"undefined"}');
    expect(roundTrip(undefined)).toBeUndefined();
  });

  it('a key whose value is undefined reads back as a present key', () => {
    const read = roundTrip({ a: 1, b: undefined, c: { d: undefined } });
    expect(read).toEqual({ a: 1, b: undefined, c: { d: undefined } });
    expect('b' in read).toBe(true);
    expect('d' in read.c).toBe(true);
    expect(Object.keys(read)).toEqual(['a', 'b', 'c']);
  });

  it('undefined elements of an array read back as undefined, not null', () => {
    const read = roundTrip([1, undefined, 3]);
    expect(read).toHaveLength(3);
    expect(1 in read).toBe(true);
    expect(read[1]).toBeUndefined();
  });

  it('holes in an array read back as holes', () => {
    // eslint-disable-next-line no-sparse-arrays
    const read = roundTrip([1, , 3, new Date(0), , ,]);
    expect(read).toHaveLength(6);
    expect(1 in read).toBe(false);
    expect(4 in read).toBe(false);
    expect(5 in read).toBe(false);
    expect(read[2]).toBe(3);
    expect(read[3]).toEqual(new Date(0));
  });
});

describe('numbers', () => {
  it.each([NaN, Infinity, -Infinity])('%p reads back as itself', (value) => {
    expect(Object.is(roundTrip(value), value)).toBe(true);
    expect(Object.is(roundTrip({ n: value }).n, value)).toBe(true);
  });

  it('-0 reads back as -0, not 0', () => {
    expect(Object.is(roundTrip(-0), -0)).toBe(true);
    expect(Object.is(roundTrip([-0])[0], -0)).toBe(true);
  });

  it('a BigInt reads back as the same bigint', () => {
    expect(roundTrip(12345678901234567890123n)).toBe(12345678901234567890123n);
    expect(roundTrip({ total: -7n })).toEqual({ total: -7n });
  });
});

describe('built-in objects', () => {
  it('a Date reads back as an equal Date', () => {
    const at = new Date('2024-05-01T12:34:56.789Z');
    const read = roundTrip({ at });
    expect(read.at).toBeInstanceOf(Date);
    expect(read.at.getTime()).toBe(at.getTime());
  });

  it('an invalid Date reads back as an invalid Date', () => {
    const read = roundTrip(new Date(NaN));
    expect(read).toBeInstanceOf(Date);
    expect(Number.isNaN(read.getTime())).toBe(true);
  });

  it('a Map with string keys reads back equal, in order', () => {
    const map = new Map<string, unknown>([
      ['b', 1],
      ['a', new Date(0)],
    ]);
    const read = roundTrip(map);
    expect(read).toBeInstanceOf(Map);
    expect(read).toEqual(map);
    expect([...read.keys()]).toEqual(['b', 'a']);
  });

  it('a Map with object keys reads back equal', () => {
    const map = new Map<unknown, unknown>([
      [{ id: 1 }, 'one'],
      [new Date(0), new Map([[1n, new Set([undefined])]])],
      [undefined, null],
    ]);
    const read = roundTrip(map);
    expect(read).toEqual(map);
    expect([...read.keys()][1]).toBeInstanceOf(Date);
  });

  it('a Set reads back equal, in order', () => {
    const set = new Set<unknown>(['x', 1, { y: 2 }, NaN]);
    const read = roundTrip(set);
    expect(read).toBeInstanceOf(Set);
    expect([...read]).toEqual([...set]);
  });

  it('a Buffer reads back as a Buffer', () => {
    const read = roundTrip({ data: Buffer.from([0, 1, 254, 255]) });
    expect(Buffer.isBuffer(read.data)).toBe(true);
    expect([...read.data]).toEqual([0, 1, 254, 255]);
  });

  it('a Uint8Array reads back as a Uint8Array, not a Buffer', () => {
    const whole = new Uint8Array([9, 8, 7, 6, 5]);
    const read = roundTrip({ bytes: whole, view: whole.subarray(1, 3) });
    expect(Buffer.isBuffer(read.bytes)).toBe(false);
    expect(Object.getPrototypeOf(read.bytes)).toBe(Uint8Array.prototype);
    expect(read.bytes).toEqual(whole);
    expect(read.view).toEqual(new Uint8Array([8, 7]));
  });

  it('other typed arrays read back with their class and elements', () => {
    const read = roundTrip([new Float64Array([1.5, -0, NaN]), new BigInt64Array([-1n, 2n])]);
    expect(read[0]).toBeInstanceOf(Float64Array);
    expect(Object.is(read[0][1], -0)).toBe(true);
    expect(Number.isNaN(read[0][2])).toBe(true);
    expect(read[1]).toEqual(new BigInt64Array([-1n, 2n]));
  });

  it('a RegExp reads back with its source and flags', () => {
    const read = roundTrip(/a+\/b/gi);
    expect(read).toBeInstanceOf(RegExp);
    expect(read.source).toBe('a+\\/b');
    expect(read.flags).toBe('gi');
  });
});

describe('values made in another realm', () => {
  it('plain objects, Dates, Maps and typed arrays from a vm context read back equal', () => {
    const value = runInNewContext(
      '({ a: [1, { b: 2 }], at: new Date(0), m: new Map([["k", new Set([1])]]), u: new Uint8Array([1, 2]) })',
    );
    expect(codec.encode({ a: value.a }, 'result')).toBe('{"a":[1,{"b":2}]}');
    const read = roundTrip(value);
    expect(read.at).toBeInstanceOf(Date);
    expect(read.at.getTime()).toBe(0);
    expect(read.m).toEqual(new Map([['k', new Set([1])]]));
    expect(read.u).toEqual(new Uint8Array([1, 2]));
  });

  it('an error thrown by a Node module reads back with its code and fields', () => {
    let thrown: any;
    try {
      readFileSync('/nonexistent/waymark-codec-test');
    } catch (error) {
      thrown = error;
    }
    const read = roundTrip(thrown, 'error');
    expect(read).toBeInstanceOf(Error);
    expect(read).toMatchObject({ code: 'ENOENT', syscall: 'open', errno: thrown.errno });
    expect(read.message).toBe(thrown.message);
  });
});

describe('errors', () => {
  it('an Error reads back with name, message and stack, message and stack not enumerable', () => {
    const error = new Error('payment failed');
    const read = roundTrip(error, 'error');
    expect(Object.getPrototypeOf(read)).toBe(Error.prototype);
    expectSameError(read, error);
    expect(Object.keys(read)).toEqual([]);
  });

  it.each([TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError])(
    'a %p reads back as an instance of that class',
    (ErrorClass) => {
      const error = new ErrorClass('bad input');
      const read = roundTrip(error, 'error');
      expect(read).toBeInstanceOf(ErrorClass);
      expectSameError(read, error);
    },
  );

  it('an error with no message reads back with no own message', () => {
    const read = roundTrip(new RangeError(), 'error');
    expect(Object.hasOwn(read, 'message')).toBe(false);
    expect(read.message).toBe('');
  });

  it('an error code and other own properties read back as enumerable properties', () => {
    const error = Object.assign(new Error('slow down'), {
      code: 'E_RATE',
      status: 429,
      headers: { 'retry-after': '5', 'x-request-id': 'abc' },
      retryAfter: 5,
      at: new Date(0),
    });
    const read = roundTrip(error, 'error');
    expectSameError(read, error);
    expect(read.headers).toEqual({ 'retry-after': '5', 'x-request-id': 'abc' });
    expect(read.at).toBeInstanceOf(Date);
    expect(Object.keys(read)).toEqual(['code', 'status', 'headers', 'retryAfter', 'at']);
  });

  it('a chain of causes reads back, each cause of its own class', () => {
    const root = { detail: 'quota', at: new Date(0) };
    const error = new Error('step failed', {
      cause: new TypeError('bad response', { cause: root }),
    });
    const read = roundTrip(error, 'error');
    expectSameError(read, error);
    expect(read.cause).toBeInstanceOf(TypeError);
    expectSameError(read.cause, error.cause);
    expect(read.cause.cause).toEqual(root);
    expect(Object.getOwnPropertyDescriptor(read, 'cause')?.enumerable).toBe(false);
  });

  it('a cause that is undefined reads back as a present cause', () => {
    const read = roundTrip(new Error('x', { cause: undefined }), 'error');
    expect('cause' in read).toBe(true);
    expect(read.cause).toBeUndefined();
    expect('cause' in roundTrip(new Error('y'), 'error')).toBe(false);
  });

  it('an AggregateError reads back with its errors, not enumerable', () => {
    const error = new AggregateError([new TypeError('a'), 'b', { c: 1n }], 'all failed');
    const read = roundTrip(error, 'error');
    expect(read).toBeInstanceOf(AggregateError);
    expectSameError(read, error);
    expect(read.errors[0]).toBeInstanceOf(TypeError);
    expect(read.errors.slice(1)).toEqual(['b', { c: 1n }]);
    expect(Object.getOwnPropertyDescriptor(read, 'errors')?.enumerable).toBe(false);
  });

  it('a registered error class reads back as an instance without calling its constructor', () => {
    let constructed = 0;
    class RateLimitError extends Error {
      constructor(readonly retryAfter: number) {
        super(`rate limited, retry in ${retryAfter}s`);
        this.name = 'RateLimitError';
        constructed++;
      }
      get retryAfterMs(): number {
        return this.retryAfter * 1000;
      }
    }
    registerErrorClasses(RateLimitError);
    const error = new RateLimitError(5);
    const read = roundTrip({ failure: error }).failure;
    expect(constructed).toBe(1);
    expect(read).toBeInstanceOf(RateLimitError);
    expectSameError(read, error);
    expect(read.retryAfterMs).toBe(5000);
  });

  it('an unregistered error class reads back as a plain Error with the stored name', () => {
    class PaymentDeclined extends Error {
      override name = 'PaymentDeclined';
      code = 'DECLINED';
      describe(): string {
        return this.message;
      }
    }
    const error = new PaymentDeclined('card declined');
    const read = roundTrip(error, 'error');
    expect(Object.getPrototypeOf(read)).toBe(Error.prototype);
    expect(read.name).toBe('PaymentDeclined');
    expect(read.code).toBe('DECLINED');
    expect(read.message).toBe('card declined');
    expect(read.stack).toBe(error.stack);
  });

  it('a registered class whose errors never set a name is found by its class name', () => {
    class QuotaError extends Error {}
    registerErrorClasses(QuotaError);
    const read = roundTrip(new QuotaError('over quota'), 'error');
    expect(read).toBeInstanceOf(QuotaError);
    expect(read.name).toBe('Error');
    expect(Object.hasOwn(read, 'name')).toBe(false);
  });

  it('a code computed by a getter of a registered class is not shadowed on read', () => {
    class GatewayError extends Error {
      get code(): string {
        return 'GATEWAY';
      }
    }
    registerErrorClasses(GatewayError);
    const read = roundTrip(new GatewayError('502'), 'error');
    expect(read).toBeInstanceOf(GatewayError);
    expect(read.code).toBe('GATEWAY');
    expect(Object.hasOwn(read, 'code')).toBe(false);
  });

  it("a waymark error keeps its code and fields, and its class once it's registered", () => {
    const error = new SerializationError('result.x', 'a function cannot be stored');
    const plain = roundTrip(error, 'error');
    expect(plain.name).toBe('SerializationError');
    expect(plain.code).toBe('SERIALIZATION');
    expect(plain.path).toBe('result.x');
    registerErrorClasses(SerializationError);
    const read = roundTrip(error, 'error');
    expect(read).toBeInstanceOf(SerializationError);
    expectSameError(read, error);
  });

  it('a property of an error that cannot be stored is rejected naming its path', () => {
    const error = Object.assign(new Error('request failed'), { request: { client: new Client() } });
    expect(() => codec.encode(error, 'error')).toThrow(
      'cannot store error.request.client: instance of class Client (has methods; store its data instead)',
    );
    const caused = new Error('outer', { cause: new Error('inner', { cause: () => 1 }) });
    expect(() => codec.encode(caused, 'error')).toThrow(
      'cannot store error.cause.cause: a function cannot be stored',
    );
  });
});

describe('the tag key', () => {
  it('a user object with a $wm key reads back unchanged', () => {
    const value = { $wm: 'Date', v: '2024-01-01T00:00:00.000Z' };
    expect(codec.encode(value, 'result')).toBe(
      '{"$wm":"Object","v":{"$wm":"Date","v":"2024-01-01T00:00:00.000Z"}}',
    );
    const read = roundTrip(value);
    expect(read).toEqual(value);
    expect(read).not.toBeInstanceOf(Date);
  });

  it('a $wm key deep inside arrays, Maps and escaped objects reads back unchanged', () => {
    const value = [
      { $wm: { $wm: 'undefined' }, at: new Date(0), gone: undefined },
      new Map([['k', { $wm: 'Error' }]]),
    ];
    const read = roundTrip(value);
    expect(read).toEqual(value);
    expect(read[0].at).toBeInstanceOf(Date);
    expect('gone' in read[0]).toBe(true);
  });

  it('user objects that look like tag markers read back as those objects', () => {
    const value = [{ $wm: 'hole' }, { $wm: 'undefined' }, { $wm: 'Object', v: { a: 1 } }];
    const read = roundTrip(value);
    expect(read).toEqual(value);
    expect(0 in read).toBe(true);
  });
});

describe('values that cannot be stored', () => {
  it('a class instance with methods is rejected naming its path and class', () => {
    expect(() => codec.encode({ items: [0, 1, 2, { client: new Client() }] }, 'result')).toThrow(
      'cannot store result.items[3].client: instance of class Client (has methods; store its data instead)',
    );
  });

  it('the rejection is a SerializationError carrying the path', () => {
    const error = encodeError({ items: [0, { fn: () => 1 }] });
    expect(error).toBeInstanceOf(SerializationError);
    expect(error).toMatchObject({ code: 'SERIALIZATION', path: 'result.items[1].fn' });
  });

  it('a function is rejected', () => {
    expect(() => codec.encode(() => 1, 'result')).toThrow(
      'cannot store result: a function cannot be stored',
    );
  });

  it('a symbol value is rejected', () => {
    expect(() => codec.encode([{ kind: Symbol('x') }], 'args')).toThrow(
      'cannot store args[0].kind: a symbol cannot be stored',
    );
  });

  it('a key that is not an identifier is printed in brackets', () => {
    expect(() => codec.encode({ 'a b': { '0': { ok: () => 1 } } }, 'result')).toThrow(
      'cannot store result["a b"]["0"].ok: a function cannot be stored',
    );
  });

  it('a Map value is named by its key, and a Map key by its entry', () => {
    const prices = new Map<unknown, unknown>([
      ['USD', 1],
      ['EUR', () => 1],
    ]);
    expect(() => codec.encode({ prices }, 'result')).toThrow(
      'cannot store result.prices<"EUR">: a function cannot be stored',
    );
    const byNumber = new Map([[7, new Client()]]);
    expect(() => codec.encode(byNumber, 'result')).toThrow('cannot store result<7>: instance');
    const byObject = new Map<unknown, unknown>([
      [{ id: 1 }, 1],
      [{ id: 2 }, Symbol('s')],
    ]);
    expect(() => codec.encode(byObject, 'result')).toThrow(
      'cannot store result<entry 1>: a symbol cannot be stored',
    );
    const badKey = new Map([[Symbol('k'), 1]]);
    expect(() => codec.encode(badKey, 'result')).toThrow(
      'cannot store result<key of entry 0>: a symbol cannot be stored',
    );
  });

  it('a Set element is named by its entry', () => {
    expect(() => codec.encode({ tags: new Set(['a', new Client()]) }, 'result')).toThrow(
      'cannot store result.tags<entry 1>: instance of class Client',
    );
  });

  it.each([
    [new WeakMap(), 'a WeakMap cannot be stored'],
    [new WeakSet(), 'a WeakSet cannot be stored'],
    [Promise.resolve(1), 'a Promise cannot be stored (await it first)'],
  ])('%p is rejected', (value, reason) => {
    expect(() => codec.encode({ x: value }, 'result')).toThrow(`cannot store result.x: ${reason}`);
  });

  it('a class with only an accessor counts as a class with methods', () => {
    class Temperature {
      constructor(private readonly celsius: number) {}
      get fahrenheit(): number {
        return (this.celsius * 9) / 5 + 32;
      }
    }
    expect(() => codec.encode(new Temperature(20), 'result')).toThrow(
      'cannot store result: instance of class Temperature (has methods; store its data instead)',
    );
  });

  it('a subclass of a class with methods is rejected by its own name', () => {
    class ErpClient extends Client {}
    expect(() => codec.encode(new ErpClient(), 'result')).toThrow('instance of class ErpClient');
  });

  it('a Map subclass is rejected rather than read back as a plain Map', () => {
    class Registry extends Map<string, number> {}
    expect(() => codec.encode(new Registry(), 'result')).toThrow('instance of class Registry');
  });

  it('an object whose prototype is an object with methods is rejected', () => {
    const value = Object.create({ greet: () => 'hi' });
    expect(() => codec.encode(value, 'result')).toThrow(
      'cannot store result: object whose prototype has methods (store its data instead)',
    );
  });

  it('a circular reference is rejected naming where it points back to', () => {
    const order: any = { items: [] };
    order.items.push(order);
    expect(() => codec.encode(order, 'result')).toThrow(
      'cannot store result.items[0]: circular reference back to result',
    );
    const nested: any = { a: { b: {} } };
    nested.a.b.c = nested.a;
    expect(() => codec.encode(nested, 'result')).toThrow(
      'cannot store result.a.b.c: circular reference back to result.a',
    );
  });

  it('a circular reference through a Map or an error cause is rejected', () => {
    const map = new Map<string, unknown>();
    map.set('self', { map });
    expect(() => codec.encode(map, 'result')).toThrow(
      'cannot store result<"self">.map: circular reference back to result',
    );
    const error = new Error('loop');
    error.cause = error;
    expect(() => codec.encode(error, 'error')).toThrow(
      'cannot store error.cause: circular reference back to error',
    );
  });
});

describe('size limit', () => {
  it('a value over 1 MiB is rejected by default with its size', () => {
    const value = 'x'.repeat(Math.round(2.3 * MIB));
    expect(() => codec.encode(value, 'result')).toThrow(
      'cannot store result: value is 2.3 MiB, over the limit of 1 MiB (maxValueBytes)',
    );
  });

  it('a value of exactly the limit is accepted', () => {
    expect(() => codec.encode('x'.repeat(MIB - 2), 'result')).not.toThrow();
  });

  it('the limit counts UTF-8 bytes, not characters', () => {
    const small = new Codec({ maxValueBytes: 10 });
    expect(small.encode('éééé', 'result')).toBe('"éééé"');
    expect(() => small.encode('ééééé', 'result')).toThrow(
      'cannot store result: value is 12 bytes, over the limit of 10 bytes (maxValueBytes)',
    );
  });

  it('a value barely over the limit is reported in exact bytes', () => {
    const small = new Codec({ maxValueBytes: 1024 });
    expect(() => small.encode('x'.repeat(1028), 'args')).toThrow(
      'cannot store args: value is 1030 bytes, over the limit of 1024 bytes (maxValueBytes)',
    );
  });

  it.each([0, -1, 1.5, NaN])('maxValueBytes %p is a ConfigurationError', (maxValueBytes) => {
    expect(() => new Codec({ maxValueBytes })).toThrow(ConfigurationError);
  });
});

describe('reading corrupt text', () => {
  it('text that is not JSON is a CorruptValueError with the parse error as cause', () => {
    let caught: unknown;
    try {
      codec.decode('{"a":', 'result');
    } catch (error) {
      caught = error;
    }
    expect(isCorruptValueError(caught)).toBe(true);
    const error = caught as CorruptValueError;
    expect(error.code).toBe('CORRUPT_VALUE');
    expect(error.path).toBe('result');
    expect(error.message).toMatch(/^cannot read result: stored text is not valid JSON \(/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('an unknown tag is a CorruptValueError naming its path', () => {
    expect(() => codec.decode('{"items":[1,{"$wm":"Frobnicator"}]}', 'result')).toThrow(
      'cannot read result.items[1]: unknown tag "Frobnicator"',
    );
  });

  it.each([
    ['{"$wm":"Date","v":5}', 'cannot read result: expected an ISO time, found 5'],
    ['{"$wm":"BigInt","v":"12x"}', 'cannot read result: expected a decimal integer, found "12x"'],
    ['{"$wm":"Number","v":"Huge"}', 'cannot read result: unknown number "Huge"'],
    ['{"a":{"$wm":"hole"}}', 'cannot read result.a: a hole marker outside an array'],
    ['{"$wm":"Map","v":[[1,{"$wm":"?"}]]}', 'cannot read result<1>: unknown tag "?"'],
    ['{"$wm":"Error","name":"Error","cause":{"$wm":5}}', 'cannot read result.cause: unknown tag 5'],
  ])('%s is rejected as corrupt', (text, message) => {
    expect(() => codec.decode(text, 'result')).toThrow(message);
    expect(() => codec.decode(text, 'result')).toThrow(CorruptValueError);
  });

  // What a tampered row may hold: each is refused with the path and the caller's label,
  // never read as an Invalid Date, an empty Buffer, or thrown as a RangeError.
  it.each([
    ['{"at":{"$wm":"Date","v":"garbage"}}', '.at: expected an ISO time, found "garbage"'],
    ['{"$wm":"Date","v":"2024-02-30T00:00:00.000Z"}', ': expected an ISO time'],
    ['{"$wm":"Date","v":[[[1]]]}', ': expected an ISO time, found an array of 1'],
    ['{"b":{"$wm":"Buffer","v":"!!!"}}', '.b: expected base64, found "!!!"'],
    ['{"$wm":"Buffer","v":"QUJD"}', null],
    ['{"$wm":"Buffer","v":"QUJ"}', ': expected base64, found "QUJ"'],
    ['{"$wm":"Uint8Array","v":"%%%%"}', ': expected base64'],
    [
      '{"$wm":"Float64Array","v":"AQID"}',
      ': byte length of Float64Array should be a multiple of 8',
    ],
    ['{"$wm":"BigInt","v":""}', ': expected a decimal integer, found ""'],
    ['{"$wm":"BigInt","v":"0x1f"}', ': expected a decimal integer, found "0x1f"'],
    ['{"$wm":"RegExp","v":["a"]}', ': expected a pair, found an array of 1'],
    ['{"$wm":"RegExp","v":["(", ""]}', ': Invalid regular expression'],
    ['{"$wm":"Map","v":[[1,2,3]]}', ': expected a pair, found an array of 3'],
    ['{"$wm":"Map","v":{"a":1}}', ': expected an array, found an object'],
    ['{"$wm":"Set","v":"abc"}', ': expected an array, found "abc"'],
    ['{"$wm":"Object","v":[1]}', ': expected an object, found an array of 1'],
    ['{"$wm":{"deep":[[[]]]}}', ': unknown tag an object'],
    [
      '{"$wm":"Error","name":"Error","props":{"toString":5}}',
      ".toString: a property named toString would hide the error's toString() method",
    ],
    [
      '{"$wm":"Error","name":"TypeError","props":{"valueOf":"x"}}',
      '.valueOf: a property named valueOf',
    ],
    ['{"$wm":"Error","name":"Error","props":{"stack":5}}', '.stack: stack is stored apart'],
    ['{"$wm":"Error","name":7}', ': expected a string, found 7'],
    ['{"$wm":"Error","name":"Error","message":["m"]}', ': expected a string, found an array of 1'],
    ['{"$wm":"Error","name":"Error","errors":{}}', ': expected an array, found an object'],
  ])('a tampered row %s is a CorruptValueError naming where', (text, message) => {
    const label = 'step #4 "book" result';
    if (message === null) {
      expect(codec.decode(text, label)).toEqual(Buffer.from('ABC'));
      return;
    }
    let caught: unknown;
    try {
      codec.decode(text, label);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CorruptValueError);
    expect((caught as Error).message).toContain(`cannot read ${label}${message}`);
  });

  it('a row nested 50,000 deep is a CorruptValueError, tagged or not, not a RangeError', () => {
    for (const inner of ['1', '{"$wm":"undefined"}']) {
      const text = '['.repeat(50_000) + inner + ']'.repeat(50_000);
      let caught: unknown;
      try {
        codec.decode(text, 'run "r-1" args');
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(CorruptValueError);
      expect((caught as CorruptValueError).message).toMatch(
        /^cannot read run "r-1" args\[0\]\[0\].*…\(980 more levels\)….*\[0\]: nested more than 1000 levels deep$/,
      );
    }
    const object = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
    expect(() => codec.decode(object, 'result')).toThrow(CorruptValueError);
    // Brackets inside strings are text, not nesting.
    const text = JSON.stringify({ s: '['.repeat(5000) });
    expect(codec.decode(text, 'result')).toEqual({ s: '['.repeat(5000) });
  });
});

describe('writing values that fight back', () => {
  const failure = (value: unknown, path = 'result'): SerializationError => {
    const error = encodeError(value, path);
    expect(error).toBeInstanceOf(SerializationError);
    return error as SerializationError;
  };

  it('a value nested 20,000 deep is a SerializationError naming the path, not a RangeError', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20_000; i++) deep = { next: deep };
    const error = failure({ chain: deep });
    expect(error.message).toMatch(
      /^cannot store result\.chain\.next\.next.*…\(980 more levels\)…(\.next)+: nested more than 1000 levels deep$/,
    );
    let ok: unknown = 'bottom';
    for (let i = 0; i < 999; i++) ok = [ok];
    expect(roundTrip(ok)).toEqual(ok);
  });

  it('a getter that throws names its own path', () => {
    const value = {
      order: {
        get total(): number {
          throw new Error('not loaded');
        },
      },
    };
    expect(failure(value).message).toBe(
      'cannot store result.order.total: reading it threw Error: not loaded',
    );
  });

  it('a Proxy whose traps throw, or a revoked one, names its path', () => {
    const trapped = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('no keys');
        },
      },
    );
    expect(failure({ p: trapped }).message).toBe(
      'cannot store result.p: reading it threw Error: no keys',
    );
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(failure([proxy]).message).toMatch(
      /^cannot store result\[0\]: reading it threw TypeError: /,
    );
    // A Proxy that behaves like its data is stored as that data.
    expect(roundTrip({ p: new Proxy({ a: 1 }, {}) })).toEqual({ p: { a: 1 } });
  });

  it('an error whose name getter throws names error.name', () => {
    const error = new Error('boom');
    Object.defineProperty(error, 'name', {
      get: () => {
        throw new Error('no name');
      },
    });
    expect(failure(error, 'error').message).toBe(
      'cannot store error.name: reading it threw Error: no name',
    );
  });

  it('an error carrying a property that would hide one of its methods is refused', () => {
    const error = Object.assign(new Error('boom'), { toString: 5 });
    expect(failure(error, 'error').message).toBe(
      "cannot store error.toString: a property named toString would hide the error's toString() method",
    );
  });

  it('a getter that throws only when JSON writes it is still a SerializationError', () => {
    let reads = 0;
    const value = {
      get x(): number {
        if (++reads > 1) throw new Error('second read');
        return 1;
      },
    };
    expect(failure(value).message).toBe(
      'cannot store result: writing it as JSON threw Error: second read',
    );
  });
});

describe('Codec.canonical', () => {
  it('two encodings of objects with keys in different orders compare equal', () => {
    const a = codec.encode({ a: 1, b: { c: 2, d: [{ x: 1, y: 2 }] } }, 'args');
    const b = codec.encode({ b: { d: [{ y: 2, x: 1 }], c: 2 }, a: 1 }, 'args');
    expect(a).not.toBe(b);
    expect(Codec.canonical(a)).toBe(Codec.canonical(b));
    expect(Codec.canonical(a)).toBe('{"a":1,"b":{"c":2,"d":[{"x":1,"y":2}]}}');
  });

  it('objects inside tagged values are sorted too, while array and Map order is kept', () => {
    const a = codec.encode(new Map([['k', { z: 1, a: undefined }]]), 'args');
    const b = codec.encode(new Map([['k', { a: undefined, z: 1 }]]), 'args');
    expect(Codec.canonical(a)).toBe(Codec.canonical(b));
    const ordered = codec.encode([3, 1, 2], 'args');
    expect(Codec.canonical(ordered)).toBe('[3,1,2]');
  });

  it('a canonical encoding reads back as the same value', () => {
    const value = { z: new Date(0), $wm: 'mine', a: Object.assign(new Error('e'), { code: 'X' }) };
    const read: any = codec.decode(Codec.canonical(codec.encode(value, 'args')), 'args');
    expect(read).toEqual(value);
    expect(read.a.code).toBe('X');
  });

  it('canonical of text that is not JSON is a CorruptValueError', () => {
    expect(() => Codec.canonical('nope')).toThrow(CorruptValueError);
  });
});

describe('registerErrorClasses', () => {
  it('registering the same class twice is harmless', () => {
    class TwiceError extends Error {}
    registerErrorClasses(TwiceError);
    registerErrorClasses(TwiceError, TwiceError);
    expect(findErrorClass('TwiceError')).toBe(TwiceError);
  });

  it('two different classes with one name are a ConfigurationError naming both', () => {
    class ClashError extends Error {}
    const First = ClashError;
    registerErrorClasses(First);
    class OtherError extends Error {}
    Object.defineProperty(OtherError.prototype, 'name', { value: 'ClashError' });
    expect(() => registerErrorClasses(OtherError)).toThrow(
      new ConfigurationError(
        'registerErrorClasses: class ClashError and class OtherError (prototype.name "ClashError") ' +
          'are two different classes both named "ClashError"; rename one or give it its own prototype.name',
      ),
    );
    expect(findErrorClass('ClashError')).toBe(First);
  });

  it('a call that fails registers none of its classes', () => {
    class FineError extends Error {}
    class NotAnError {}
    expect(() => registerErrorClasses(FineError, NotAnError as any)).toThrow(
      'registerErrorClasses: class NotAnError is not a class that extends Error',
    );
    expect(findErrorClass('FineError')).toBeUndefined();
  });

  it('a class registered under its prototype.name is found by that name', () => {
    class Minified extends Error {}
    Object.defineProperty(Minified.prototype, 'name', { value: 'InventoryError' });
    registerErrorClasses(Minified);
    expect(findErrorClass('InventoryError')).toBe(Minified);
    expect(roundTrip(new Minified('out of stock'), 'error')).toBeInstanceOf(Minified);
  });
});

describe("waymark's own errors", () => {
  it('every error class exported from waymark reads back as its class', async () => {
    const errors: Record<string, unknown> = await import('../../../src/errors');
    const classes = Object.entries(errors).filter(
      ([name, value]) => typeof value === 'function' && /^[A-Z]\w*Error$/.test(name),
    );
    expect(classes.length).toBeGreaterThan(20);
    const unregistered = classes
      .filter(([name, value]) => findErrorClass(name) !== value)
      .map(([name]) => name);
    expect(unregistered).toEqual([]);
  });
});

describe('errors that cannot be stored as they are', () => {
  it('an error over the size limit keeps its name and code and has its message cut and marked', () => {
    const error = Object.assign(new RangeError(`slow down ${'x'.repeat(2 * MIB)}`), {
      code: 'E_RATE',
      status: 429,
    });
    const stored = encodeErrorAsStored(codec, error);
    expect(stored.exact).toBe(false);
    expect(Buffer.byteLength(stored.text)).toBeLessThanOrEqual(codec.maxValueBytes);
    const read = codec.decode(stored.text, 'error') as RangeError & Record<string, unknown>;
    expect(read).toBeInstanceOf(RangeError);
    expect(read).toMatchObject({ name: 'RangeError', code: 'E_RATE', status: 429 });
    expect(read.message.startsWith('slow down xxx')).toBe(true);
    expect(read.message).toMatch(
      /… \[cut by waymark: 2097162 characters, too large to store whole\]$/,
    );
  });

  it('a long cause is cut too, and the chain is kept', () => {
    const cause = Object.assign(new Error('y'.repeat(1_500_000)), { code: 'ECONNRESET' });
    const stored = encodeErrorAsStored(codec, new Error('request failed', { cause }));
    const read = codec.decode(stored.text, 'error') as Error & { cause: Error & { code: string } };
    expect(read.message).toBe('request failed');
    expect(read.cause.code).toBe('ECONNRESET');
    expect(read.cause.message).toMatch(/cut by waymark/);
  });

  it('a thrown string over the limit is cut', () => {
    const stored = encodeErrorAsStored(codec, 'z'.repeat(2 * MIB));
    expect(stored.exact).toBe(false);
    expect(codec.decode(stored.text, 'error')).toMatch(/^z+… \[cut by waymark/);
  });

  it('an error that can be stored is stored exactly, and says so', () => {
    const error = Object.assign(new Error('no'), { code: 'E_NO' });
    expect(encodeErrorAsStored(codec, error)).toEqual({
      text: codec.encode(error, 'error'),
      exact: true,
    });
  });
});
