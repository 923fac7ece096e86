/**
 * Characters a terminal may act on instead of showing: C0 controls (ESC starts CSI and OSC
 * sequences: `ESC[2J` clears the screen, OSC 0 sets the window title, OSC 52 writes the
 * clipboard), DEL, C1 controls (U+009B is a one-character CSI on some terminals), and the
 * Unicode direction overrides and isolates that reorder what is shown ("Trojan Source").
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escape(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text from the database (run ids, step names, error messages) made safe to print on an
 * operator's terminal: every control character shows as an escape (`\x1b`, `\n`,
 * `\u202e`) instead of acting. Every CLI printer passes stored text through it — the table
 * formatter does for every cell, `Output.error` and `Output.warn` for whole messages —
 * before any colour of waymark's own is added.
 *
 * @param options.keepNewlines - leave `\n` as a line break (a message of several lines).
 *
 * @example
 * ```ts
 * terminalSafe('boom\u001b]52;c;cm0gLXJmIH4=\u0007'); // 'boom\\x1b]52;c;cm0gLXJmIH4=\\x07'
 * ```
 */
export function terminalSafe(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(UNSAFE, (char) =>
    char === '\n' && options.keepNewlines ? char : escape(char),
  );
}
