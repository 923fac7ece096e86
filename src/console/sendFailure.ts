import type { ServerResponse } from 'node:http';
import { isConsoleHttpError } from './ConsoleHttpError';
import { httpStatusOf } from './httpStatusOf';
import { sendError } from './httpResponses';

/** Answers `{ error }` with the status for `error`; a 500 says it is an internal error. */
export function sendFailure(
  res: ServerResponse,
  error: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const status = httpStatusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const own = isConsoleHttpError(error) ? error.headers : {};
  sendError(res, status, status === 500 ? `internal error: ${message}` : message, {
    ...headers,
    ...own,
  });
}
