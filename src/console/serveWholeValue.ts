import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowMethod } from './allowMethod';
import type { ConsoleApi } from './ConsoleApi';
import { ConsoleHttpError } from './ConsoleHttpError';
import { send } from './httpResponses';
import type { WholeValueOf } from '../model/RunRecords';

/** What `/runs/:id/args`, `/runs/:id/outcome` or `/runs/:id/steps/:seq/output` asks for. */
export interface WholeValueRequest {
  runId: string;
  of: WholeValueOf;
}

/**
 * The request of a whole-value path (the part after `/api`), else undefined: the answers
 * cut values at 1,000 characters, these give one of them whole, on demand.
 *
 * @example
 * ```ts
 * wholeValuePath('/runs/po-1/steps/3/output'); // { runId: 'po-1', of: { stepSeq: 3 } }
 * ```
 */
export function wholeValuePath(path: string): WholeValueRequest | undefined {
  const [, collection, encodedId, action, seq, leaf, ...rest] = path.split('/');
  if (collection !== 'runs' || !encodedId || rest.length > 0) return undefined;
  if ((action === 'args' || action === 'outcome') && seq === undefined) {
    return { runId: runIdOf(encodedId), of: action };
  }
  if (action !== 'steps' || leaf !== 'output' || seq === undefined) return undefined;
  if (!/^\d{1,10}$/.test(seq)) throw new ConsoleHttpError(400, `malformed step seq "${seq}"`);
  return { runId: runIdOf(encodedId), of: { stepSeq: Number(seq) } };
}

/**
 * Answers one stored value whole, as the codec's JSON text (`application/json`): only the
 * value asked for is read, never a page of them. 404 when the run has no such value.
 */
export async function serveWholeValue(
  api: ConsoleApi,
  req: IncomingMessage,
  res: ServerResponse,
  request: WholeValueRequest,
): Promise<void> {
  allowMethod(req, 'GET');
  const text = await api.wholeValue(request.runId, request.of);
  if (text === null) throw new ConsoleHttpError(404, 'the run has no such value (yet)');
  send(res, 200, 'application/json; charset=utf-8', text);
}

function runIdOf(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ConsoleHttpError(400, `malformed run id "${segment}"`);
  }
}
