/**
 * `waymark/otel`: OpenTelemetry spans for runs and steps, and metrics. Needs the optional peer
 * dependency `@opentelemetry/api`.
 *
 * @packageDocumentation
 */
// tsyringe throws at load without the metadata polyfill, and this entry point may be loaded first.
import 'reflect-metadata';
export * from './traceRuns';
export * from './TracingStepInterceptor';
export * from './meterRuns';
