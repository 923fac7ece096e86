const MAX_CAUSE_DEPTH = 8;

/**
 * True when the error, or one of its causes, is an HTTP 429 (Too Many Requests): a status
 * of 429 on `status`, `statusCode` or `response.status`, as provider SDKs and fetch wrappers
 * report it.
 */
export function isRateLimitedError(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && isObject(current); depth++) {
    if (seen.has(current)) return false;
    seen.add(current);
    const response = current.response;
    const statuses = [
      current.status,
      current.statusCode,
      isObject(response) ? response.status : undefined,
    ];
    if (statuses.includes(429)) return true;
    current = current.cause;
  }
  return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
