import * as fc from 'fast-check';
import { Codec } from '../../src/codec/Codec';
import { CorruptValueError } from '../../src/errors/CorruptValueError';

/*
 * The codec's two promises, over generated inputs: every value it accepts reads back equal,
 * and whatever JSON a row holds — tampered, truncated, tags with nonsense in them — reads
 * back or fails with CorruptValueError, and nothing else. WAYMARK_PROPERTY_SEED replays a
 * failure fast-check printed.
 */
const SEED = process.env.WAYMARK_PROPERTY_SEED;
const settings = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns,
  ...(SEED ? { seed: Number(SEED) } : {}),
});
const codec = new Codec({ maxValueBytes: 64 * 1_048_576 });

const keys = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('__proto__', '$wm', 'constructor', 'toString', 'a b', '', 'v'),
);
// Jest's toStrictEqual compares `constructor` to tell classes apart, own keys included.
const comparableKeys = keys.filter((key) => key !== 'constructor');

/** Storable values; with `exotic`, also errors and invalid Dates (which Jest cannot compare). */
function storable(exotic: boolean): fc.Arbitrary<unknown> {
  const leaves: Array<fc.Arbitrary<unknown>> = [
    fc.string(),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt(),
    fc.date({ noInvalidDate: !exotic }),
    fc.uint8Array({ maxLength: 16 }).map((bytes) => Buffer.from(bytes)),
    fc.uint8Array({ maxLength: 16 }),
    fc.float64Array({ maxLength: 4 }),
    fc.bigInt64Array({ maxLength: 4 }),
    fc.constantFrom(/a+b?/g, /^x$/imsu, new RegExp('')),
  ];
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', maxDepth: 5 }, ...leaves, tie('node')),
    node: fc.oneof(
      fc.array(tie('value'), { maxLength: 4 }),
      fc.sparseArray(tie('value'), { maxLength: 6 }),
      fc.dictionary(exotic ? keys : comparableKeys, tie('value'), {
        maxKeys: 4,
        noNullPrototype: true,
      }),
      fc
        .array(fc.tuple(tie('value'), tie('value')), { maxLength: 3 })
        .map((entries) => new Map(entries)),
      fc.array(tie('value'), { maxLength: 3 }).map((items) => new Set(items)),
      ...(exotic ? [errors(tie('value'))] : []),
    ),
  }));
  return value;
}

function errors(inner: fc.Arbitrary<unknown>): fc.Arbitrary<Error> {
  return fc
    .record(
      {
        kind: fc.constantFrom(Error, TypeError, RangeError, AggregateError),
        message: fc.string(),
        code: fc.oneof(fc.string({ maxLength: 6 }), fc.integer()),
        cause: inner,
        extra: fc.dictionary(fc.constantFrom('status', 'retryAfter', 'detail'), inner, {
          maxKeys: 2,
        }),
        inner: fc.array(inner, { maxLength: 2 }),
      },
      { requiredKeys: ['kind', 'message'] },
    )
    .map(({ kind, message, code, cause, extra, inner: members }) => {
      const options = cause === undefined ? {} : { cause };
      const error =
        kind === AggregateError
          ? new AggregateError(members ?? [], message, options)
          : new (kind as ErrorConstructor)(message, options);
      return Object.assign(error, code === undefined ? {} : { code }, extra ?? {});
    });
}

/** JSON a tampered row might hold: plain JSON, and tagged nodes with any content at all. */
const tamperedTree: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.jsonValue({ maxDepth: 2 }),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(keys, tie('node'), { maxKeys: 4 }),
    tie('tagged'),
    tie('error'),
  ),
  tagged: fc.record(
    {
      $wm: fc.oneof(
        fc.constantFrom(
          ...['undefined', 'hole', 'Object', 'Number', 'BigInt', 'Date', 'RegExp', 'Buffer'],
          ...['Map', 'Set', 'Error', 'Uint8Array', 'Float64Array', 'BigInt64Array'],
        ),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      v: fc.oneof(
        tie('node'),
        fc.constantFrom('NaN', '-0', '12', '', '2024-01-01T00:00:00.000Z', 'AAAA', 'garbage'),
        fc.constantFrom(['a', 'g'], ['(', ''], [[1, 2]], [[1, 2, 3]]),
      ),
    },
    { requiredKeys: ['$wm'] },
  ),
  // Errors shaped well enough to get as far as their properties.
  error: fc.record(
    {
      $wm: fc.constant('Error'),
      name: fc.oneof(fc.constantFrom('Error', 'TypeError', 'AggregateError'), tie('node')),
      class: fc.constantFrom('RunNotFoundError', 'Nope', 'RangeError'),
      message: fc.oneof(fc.string(), tie('node')),
      stack: fc.string(),
      cause: tie('node'),
      code: tie('node'),
      errors: fc.array(tie('node'), { maxLength: 2 }),
      props: fc.dictionary(
        fc.constantFrom('toString', 'valueOf', 'constructor', 'status', 'stack', 'x'),
        tie('node'),
        { maxKeys: 2 },
      ),
    },
    { requiredKeys: ['$wm', 'name'] },
  ),
})).node;

/** Stored texts: tampered trees, and trees buried under thousands of levels of nesting. */
const tamperedText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: tamperedTree.map((tree) => JSON.stringify(tree) ?? 'null'), weight: 9 },
  {
    arbitrary: fc
      .tuple(
        fc.oneof(fc.integer({ min: 900, max: 3_000 }), fc.constant(50_000)),
        fc.boolean(),
        tamperedTree,
      )
      .map(([depth, asArrays, leaf]) => {
        const [open, close] = asArrays ? ['[', ']'] : ['{"a":', '}'];
        return open.repeat(depth) + (JSON.stringify(leaf) ?? 'null') + close.repeat(depth);
      }),
    weight: 1,
  },
);

describe('the codec, over generated values', () => {
  it('any storable value reads back equal', () => {
    fc.assert(
      fc.property(storable(false), (value) => {
        expect(codec.decode(codec.encode(value, 'result'), 'result')).toStrictEqual(value);
      }),
      settings(300),
    );
  });

  it('any storable value, errors and invalid Dates included, is stored the same after a round trip', () => {
    fc.assert(
      fc.property(storable(true), (value) => {
        const text = codec.encode(value, 'result');
        expect(codec.encode(codec.decode(text, 'result'), 'result')).toBe(text);
      }),
      settings(300),
    );
  });

  it('any JSON in a row reads back as a storable value or fails with CorruptValueError', () => {
    const readOrCorrupt = (text: string): void => {
      let value: unknown;
      try {
        value = codec.decode(text, 'step #1 "x" result');
      } catch (error) {
        expect(error).toBeInstanceOf(CorruptValueError);
        return;
      }
      // What reads back can be stored, and then reads back the same; an error can be
      // printed (user data need not be: a plain object may have a key named toString).
      const stored = codec.encode(value, 'result');
      expect(codec.encode(codec.decode(stored, 'result'), 'result')).toBe(stored);
      if (value instanceof Error) expect(typeof String(value)).toBe('string');
    };
    fc.assert(fc.property(tamperedText, readOrCorrupt), settings(500));
    fc.assert(fc.property(fc.json(), readOrCorrupt), settings(300));
    fc.assert(fc.property(fc.string(), readOrCorrupt), settings(300));
  });
});
