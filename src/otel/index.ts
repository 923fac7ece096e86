export * from './traceRuns';
