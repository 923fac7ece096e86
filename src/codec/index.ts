export { Codec } from './Codec';
export { registerErrorClasses } from './ErrorClassRegistry';
