/** The logging interface a runtime writes to; `console` satisfies it. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Default logger: warnings and errors to stderr, nothing else. */
export const quietConsoleLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (message, fields) => console.warn(`[waymark] ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`[waymark] ${message}`, fields ?? ''),
};
