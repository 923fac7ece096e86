import { escapeOf, SHOWN_TEXT_PATTERN } from '../ground/escapedCharacters';

/**
 * What a terminal may act on or hide instead of showing (`SHOWN_TEXT_PATTERN`, shared with
 * the console): C0 controls (ESC starts CSI and OSC sequences: `ESC[2J` clears the screen,
 * OSC 0 sets the window title, OSC 52 writes the clipboard), DEL, C1 controls (U+009B is a
 * one-character CSI on some terminals), the bidi controls that reorder what is shown
 * ("Trojan Source"), and the zero-width and other format characters that hide text.
 */
const SHOWN = new RegExp(SHOWN_TEXT_PATTERN.source, SHOWN_TEXT_PATTERN.flags);

/**
 * Text from the database (run ids, step names, error messages) made safe to print on an
 * operator's terminal: every control or invisible format character shows as an escape
 * (`\x1b`, `\n`, `\u202e`, `\u200b`) instead of acting; emoji joined by U+200D stay whole.
 * Every CLI printer passes stored text through it — the table formatter does for every
 * cell, `Output.error` and `Output.warn` for whole messages — before any colour of
 * waymark's own is added.
 *
 * @param options.keepNewlines - leave `\n` as a line break (a message of several lines).
 *
 * @example
 * ```ts
 * terminalSafe('boom\u001b]52;c;cm0gLXJmIH4=\u0007'); // 'boom\\x1b]52;c;cm0gLXJmIH4=\\x07'
 * ```
 */
export function terminalSafe(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(SHOWN, (match: string, kept: string | undefined) =>
    kept !== undefined || (match === '\n' && options.keepNewlines) ? match : escapeOf(match),
  );
}
