/**
 * Characters that act on the text around them instead of showing: C0 and C1 controls and
 * DEL (`\p{Cc}`: ESC starts a terminal's CSI and OSC sequences), every Unicode format
 * character (`\p{Cf}`: the bidi embeddings, overrides and isolates U+202A–U+202E and
 * U+2066–U+2069 that reorder what is shown — "Trojan Source", `invoice_2026\u202efdp.exe`
 * reading as `invoice_2026exe.pdf` — the marks U+200E, U+200F and U+061C, the zero-width
 * space, joiners and word joiner U+200B–U+200D and U+2060–U+2064, the byte-order mark
 * U+FEFF, the soft hyphen, and the tag characters U+E0000–U+E007F that hide ASCII), the line
 * and paragraph separators U+2028 and U+2029, and the Hangul fillers that show as nothing.
 * Letters of right-to-left scripts are not among them: Arabic and Hebrew show as written.
 */
const ESCAPED_CHARACTER = String.raw`[\p{Cc}\p{Cf}\u2028\u2029\u115f\u1160\u3164\uffa0]`;

/** An emoji, with its optional skin tone or emoji presentation selector. */
const EMOJI = String.raw`\p{Extended_Pictographic}[\u{1f3fb}-\u{1f3ff}\ufe0f]*`;

/**
 * Emoji sequences held together by format characters, which are part of the picture and
 * cannot reorder or hide text: emoji joined by U+200D (woman + ZWJ + laptop, the rainbow
 * flag) and a subdivision flag (U+1F3F4, two to seven tag letters or digits, the cancel tag
 * U+E007F: the flag of Scotland). A longer tag run after U+1F3F4 is no flag and is escaped.
 */
const SUBDIVISION_FLAG = String.raw`\u{1f3f4}[\u{e0030}-\u{e0039}\u{e0061}-\u{e007a}]{2,7}\u{e007f}`;
const KEPT_SEQUENCE = String.raw`${SUBDIVISION_FLAG}|${EMOJI}(?:\u200d${EMOJI})+`;

/**
 * What the CLI and the console look for in stored text, as a regular expression's source
 * and flags (the console embeds both into its page script, so the two show the same text
 * the same way): each match is either a kept emoji sequence (capture group 1, shown as it
 * is) or one character to show as an escape.
 */
export const SHOWN_TEXT_PATTERN = {
  source: `(${KEPT_SEQUENCE})|${ESCAPED_CHARACTER}`,
  flags: 'gu',
} as const;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * The escape that shows `char` (one code point): `\n`, `\r` and `\t` by name, other code
 * points up to U+00FF as `\x1b`, the rest of the basic plane as `\u202e`, beyond it as
 * `\u{e0041}`. The console's page script writes the same escapes.
 *
 * @example
 * ```ts
 * escapeOf('\u202e'); // '\\u202e'
 * ```
 */
export function escapeOf(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16);
  if (code <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${hex.padStart(4, '0')}` : `\\u{${hex}}`;
}
