const ANSWERS: Record<string, string> = {
  ECONNREFUSED: 'refused the connection',
  ECONNRESET: 'reset the connection',
  ETIMEDOUT: 'did not answer in time',
  EHOSTUNREACH: 'is unreachable',
  ENETUNREACH: 'is unreachable',
  ENOTFOUND: 'is not a known host name',
  EAI_AGAIN: 'could not be resolved (DNS)',
  PROTOCOL_CONNECTION_LOST: 'closed the connection',
};

/**
 * What a host answered, in a few words, for a {@link NoWritableHostError}: the error's
 * meaning when its code is a known network one, else its message and code. `secret` (the
 * URL's password) is blanked wherever it appears.
 */
export function describeAnswer(error: unknown, secret?: string): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const codeText = typeof code === 'string' ? code : undefined;
  const known = codeText ? ANSWERS[codeText] : undefined;
  let text = known
    ? `${known} (${codeText})`
    : `${typeof message === 'string' && message !== '' ? message : String(error)}${codeText ? ` (${codeText})` : ''}`;
  if (secret) text = text.split(secret).join('***');
  return text;
}
