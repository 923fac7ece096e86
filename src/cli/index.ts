export { createProgram, main } from './main';
export * from './CliContext';
export * from './CliError';
export * from './ExitCode';
export { Output, type OutputStream } from './Output';
