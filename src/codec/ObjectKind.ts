import { types } from 'node:util';
import { TYPED_ARRAYS } from './ValueTags';

const BUILTIN_TESTS = new Map<string, (value: object) => boolean>([
  ['Date', types.isDate],
  ['Map', types.isMap],
  ['Set', types.isSet],
  ['RegExp', types.isRegExp],
]);
const prototypeHasMethods = new WeakMap<object, boolean>();

/**
 * The tag of a built-in object the codec stores by kind (`Date`, `Map`, `Set`, `RegExp`, a
 * typed array name), or `undefined`. Tested by internal slot rather than `instanceof`, so
 * objects made in another realm (a `vm` context, Jest's sandbox versus Node's own modules)
 * count too; subclasses do not, as reading them back as the base class would drop methods.
 */
export function builtinTag(value: object, proto: object): string | undefined {
  const name = constructorName(proto);
  if (TYPED_ARRAYS.has(name)) {
    return types.isTypedArray(value) && value[Symbol.toStringTag] === name ? name : undefined;
  }
  return BUILTIN_TESTS.get(name)?.(value) === true ? name : undefined;
}

/**
 * True when a prototype in the chain from `proto` up to (not including) `Object.prototype`
 * defines a method or accessor other than `constructor`: an instance of such a class would
 * lose behaviour if stored as data.
 */
export function hasMethods(proto: object): boolean {
  for (let p: object | null = proto; p !== null && !isObjectPrototype(p);) {
    let found = prototypeHasMethods.get(p);
    if (found === undefined) {
      found = definesMethods(p);
      prototypeHasMethods.set(p, found);
    }
    if (found) return true;
    p = Object.getPrototypeOf(p) as object | null;
  }
  return false;
}

/** Why an instance whose prototype is `proto` cannot be stored, for `SerializationError`. */
export function describeInstance(proto: object): string {
  const name = constructorName(proto);
  return name === '' || name === 'Object'
    ? 'object whose prototype has methods (store its data instead)'
    : `instance of class ${name} (has methods; store its data instead)`;
}

// Any realm's Object.prototype ends the chain, so plain objects from a `vm` context are data.
function isObjectPrototype(p: object): boolean {
  return (
    p === Object.prototype || (Object.getPrototypeOf(p) === null && constructorName(p) === 'Object')
  );
}

function constructorName(proto: object): string {
  const ctor: unknown = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value;
  return typeof ctor === 'function' ? ctor.name : '';
}

function definesMethods(proto: object): boolean {
  return Reflect.ownKeys(proto).some((key) => {
    if (key === 'constructor') return false;
    const descriptor = Object.getOwnPropertyDescriptor(proto, key);
    return (
      descriptor !== undefined &&
      (descriptor.get !== undefined ||
        descriptor.set !== undefined ||
        typeof descriptor.value === 'function')
    );
  });
}
