/** The longest reason stored: enough for any message a person reads, bounded for a list. */
export const MAX_REASON_TEXT = 2000;

/**
 * Why something stopped, as one plain text a person reads without the codec:
 * `"<name>: <message>"` of an error (and its `code` when it has one), cut at
 * {@link MAX_REASON_TEXT} characters. Stored as a run's parked reason.
 *
 * @example
 * ```ts
 * reasonText(new NonDeterminismError('po-1', 2, 'charge', 'ship'));
 * // 'NonDeterminismError: run "po-1" is not replayable at step #2: …'
 * ```
 */
export function reasonText(error: unknown): string {
  let text: string;
  if (error instanceof Error) {
    const { code } = error as { code?: unknown };
    const coded = typeof code === 'string' && code !== '' ? ` [${code}]` : '';
    text = `${error.name}${coded}: ${error.message}`;
  } else {
    text = `thrown: ${safeString(error)}`;
  }
  if (text.length <= MAX_REASON_TEXT) return text;
  // Never end on half a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(text[MAX_REASON_TEXT - 1])
    ? MAX_REASON_TEXT - 1
    : MAX_REASON_TEXT;
  return `${text.slice(0, end)}…`;
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}
