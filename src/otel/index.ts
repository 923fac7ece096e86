/**
 * `waymark/otel`: OpenTelemetry spans for runs and steps, and metrics. Needs the optional peer
 * dependency `@opentelemetry/api`.
 *
 * @packageDocumentation
 */
export * from './traceRuns';
export * from './TracingStepInterceptor';
export * from './meterRuns';
