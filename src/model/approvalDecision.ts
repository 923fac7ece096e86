import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { storedValue } from './StoredValue';
import { APPROVAL_REQUEST_STEP, TOOL_APPROVAL_PREFIX } from './toolApprovalSignals';

/**
 * A signal that decides one request (`approve:<toolCallId>`): the first decision for the
 * request is stored, any later one is refused, and none is kept for a later wait. It may name
 * the request as the decider saw it; each given field is checked when the signal is stored.
 */
export interface Decision {
  /** The seq of the wait (`signal:approve:<toolCallId>` in the history) the decider saw. */
  readonly waitSeq?: number;
  /** The digest of the proposed arguments the decider saw (`approval.digest` in the console). */
  readonly digest?: string;
  /** The step that records the request before its wait. */
  readonly requestStep: string;
  /** The digest of a stored request (that step's output), as {@link digestOfRequest}. */
  digestOf(output: string): string;
}

/** The decision a signal is, read from its payload (`waitSeq`, `digest`); undefined: not one. */
export function decisionOf(name: string, payload: unknown): Decision | undefined {
  if (!name.startsWith(TOOL_APPROVAL_PREFIX)) return undefined;
  const fields = isRecord(payload) ? payload : {};
  const { waitSeq, digest } = fields;
  if (waitSeq !== undefined && !(Number.isSafeInteger(waitSeq) && (waitSeq as number) >= 0)) {
    throw new InvalidArgumentError(
      `signal(): payload.waitSeq of "${name}"`,
      'must be a seq (an integer ≥ 0)',
    );
  }
  if (digest !== undefined && typeof digest !== 'string') {
    throw new InvalidArgumentError(`signal(): payload.digest of "${name}"`, 'must be a string');
  }
  return {
    ...(waitSeq === undefined ? {} : { waitSeq: waitSeq as number }),
    ...(digest === undefined ? {} : { digest }),
    requestStep: APPROVAL_REQUEST_STEP,
    digestOf: digestOfRequest,
  };
}

/**
 * Characters of a stored request its digest covers: what the console reads of it (the tool
 * name and call id, and the arguments' first 1,000 characters), never the whole value.
 */
export const REQUEST_DIGEST_CHARS = 3048;

/**
 * The digest of a stored approval request (the codec's JSON text of `{ tool, toolCallId,
 * input }`), as the console showed it: SHA-256, hex, of its first
 * {@link REQUEST_DIGEST_CHARS} characters and its length. The console lists it with the
 * arguments it shows, and a decision that carries it is refused if the request differs.
 */
export function digestOfRequest(output: string): string {
  const points = Array.from(output);
  const prefix = storedValue(points.slice(0, REQUEST_DIGEST_CHARS).join(''), REQUEST_DIGEST_CHARS);
  return digestOfShownRequest(prefix.json, points.length);
}

/**
 * {@link digestOfRequest} from what a bounded read gave: the request's start, cut as
 * `storedValue` cuts at {@link REQUEST_DIGEST_CHARS}, and its length in code points.
 */
export function digestOfShownRequest(prefix: string, length: number): string {
  return createHash('sha256').update(`${length}:${prefix}`).digest('hex');
}

/** Who made a decision: its payload's `decidedBy`, else its `by`, else "unknown". */
export function deciderOf(payload: unknown): string {
  if (!isRecord(payload)) return 'unknown';
  for (const field of ['decidedBy', 'by']) {
    const value = payload[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return 'unknown';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
