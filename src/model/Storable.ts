type Primitive = string | number | boolean | bigint | null | undefined | void;
type Leaf = Primitive | Date | RegExp | Uint8Array | Error;
type Depth = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8];

/**
 * `true` when values of `T` can be stored and read back equal: no functions, symbols or
 * class instances with methods anywhere inside (checked 8 levels deep; deeper is trusted).
 * `any` and `unknown` cannot be checked and are accepted.
 */
export type IsStorable<T, D extends number = 8> = [D] extends [never]
  ? true
  : 0 extends 1 & T
    ? true
    : unknown extends T
      ? true
      : [T] extends [Leaf]
        ? true
        : T extends (...args: never[]) => unknown
          ? false
          : T extends symbol
            ? false
            : T extends Promise<unknown>
              ? false
              : T extends ReadonlyMap<infer K, infer V>
                ? AllTrue<IsStorable<K, Depth[D]> | IsStorable<V, Depth[D]>>
                : T extends ReadonlySet<infer V>
                  ? IsStorable<V, Depth[D]>
                  : T extends readonly (infer E)[]
                    ? IsStorable<E, Depth[D]>
                    : T extends Leaf
                      ? true
                      : T extends object
                        ? AllTrue<{ [K in keyof T]-?: IsStorable<T[K], Depth[D]> }[keyof T]>
                        : false;

type AllTrue<B> = [B] extends [true] ? true : false;

/**
 * Constrains a decorated method: it must return `Promise<T>` with `T` storable. A method
 * returning a function (or a class instance with methods) fails to compile, naming why.
 */
export type StorableResult<M> = M extends (...args: never[]) => Promise<infer R>
  ? AllTrue<IsStorable<R>> extends true
    ? unknown
    : {
        'the result of a step or workflow must be storable: no functions, symbols, promises or class instances with methods': never;
      }
  : { 'a step or workflow must return a Promise': never };
