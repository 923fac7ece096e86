/**
 * A request the console refuses, with the HTTP status to answer and a message for the
 * person or script that sent it (`{ "error": message }`).
 *
 * @example
 * ```ts
 * throw new ConsoleHttpError(413, 'the request body is over 65536 bytes');
 * ```
 */
export class ConsoleHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = new.target.name;
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/** True when `error` is a {@link ConsoleHttpError}. */
export function isConsoleHttpError(error: unknown): error is ConsoleHttpError {
  return error instanceof ConsoleHttpError;
}
