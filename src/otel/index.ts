/**
 * `waymark/otel`: OpenTelemetry spans for runs and steps. Needs the optional peer dependency
 * `@opentelemetry/api`.
 *
 * @packageDocumentation
 */
export * from './traceRuns';
