import { createHash } from 'node:crypto';
import { InvalidArgumentError } from '../errors/InvalidArgumentError';
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
  digestOf(output: string): string | undefined;
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
 * The digest of a stored approval request (the JSON of `{ tool, toolCallId, input }`): SHA-256,
 * hex, of its tool name, call id and arguments as stored. The console lists it with the
 * arguments it shows, and a decision that carries it is refused if the request differs.
 */
export function digestOfRequest(output: string): string | undefined {
  let request: unknown;
  try {
    request = JSON.parse(output);
  } catch {
    return undefined;
  }
  if (!isRecord(request)) return undefined;
  const { tool, toolCallId, input } = request;
  return createHash('sha256')
    .update(JSON.stringify([tool, toolCallId, input ?? null]))
    .digest('hex');
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
