/** The `@opentelemetry/api` module, loaded when an adapter is made (an optional peer). */
export type OpenTelemetryApi = typeof import('@opentelemetry/api');
