import { STATUS_CODES } from 'node:http';
import { Catch, HttpException, Logger, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { httpStatusOfError } from '../errors/httpStatusOfError';
import { storedOutcomeOf } from '../errors/storedOutcomeNote';
import { WaymarkError } from '../errors/WaymarkError';

/** The body a client gets for a waymark error. */
export interface WaymarkErrorBody {
  statusCode: number;
  /** The status's reason phrase, as in Nest's own error bodies: `'Not Found'`. */
  error: string;
  /** waymark's stable error code: `'RUN_NOT_FOUND'`, `'INVALID_ARGUMENT'`, … */
  code: string;
  /** What was wrong; for a 503, only that the service is unavailable (details are logged). */
  message: string;
}

/**
 * Answers waymark's errors with the HTTP status that says what they mean, instead of Nest's
 * 500: an unknown run (`RunNotFoundError`) is 404; a run id taken by other arguments, or a
 * run in the wrong state for the action (`RunConflictError`, `InvalidRunStateError`,
 * `RunFinishedError`) 409; bad input (`ConfigurationError`, `InvalidArgumentError`,
 * `SerializationError`) 400; an unavailable database or a runtime shutting down
 * (`StoreUnavailableError`, `RuntimeClosedError`) 503, whose details are logged, not sent.
 * Other errors — waymark's or not — get Nest's usual handling.
 *
 * `WaymarkModule` registers it for the whole application (unless `exceptionFilter: false`); or as any global
 * filter (`{ provide: APP_FILTER, useClass: WaymarkExceptionFilter }`), or on a controller
 * with `@UseFilters(WaymarkExceptionFilter)`.
 *
 * @example
 * ```ts
 * const app = await NestFactory.create(AppModule);
 * app.useGlobalFilters(new WaymarkExceptionFilter(app.get(HttpAdapterHost).httpAdapter));
 * // GET /purchases/unknown → 404 { statusCode: 404, error: 'Not Found', code: 'RUN_NOT_FOUND', … }
 * ```
 */
// Nest matches @Catch by instanceof, so another copy of waymark's errors pass by; catching
// everything instead would take exceptions from the application's own global filters.
@Catch(WaymarkError)
export class WaymarkExceptionFilter extends BaseExceptionFilter {
  private static readonly log = new Logger('WaymarkExceptionFilter');

  catch(exception: WaymarkError, host: ArgumentsHost): void {
    const status = httpStatusOfError(exception);
    if (status === undefined) {
      super.catch(exception, host);
      return;
    }
    const reason = STATUS_CODES[status] ?? 'Error';
    if (status >= 500) WaymarkExceptionFilter.log.error(exception);
    const body: WaymarkErrorBody = {
      statusCode: status,
      error: reason,
      code: exception.code,
      message: status >= 500 ? `${reason}: try again later` : clientMessage(exception),
    };
    super.catch(new HttpException(body, status, { cause: exception }), host);
  }
}

/**
 * The message as thrown: a run's stored error re-thrown to a later call carries a line for
 * operators (how to retry the run) that is no business of an HTTP client.
 */
function clientMessage(exception: WaymarkError): string {
  const stored = storedOutcomeOf(exception)?.error;
  return stored instanceof Error ? stored.message : exception.message;
}
