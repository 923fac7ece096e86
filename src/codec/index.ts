export { Codec } from './Codec';
export { registerErrorClasses, type ErrorClass } from './ErrorClassRegistry';
