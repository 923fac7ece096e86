import { ConfigurationError } from '../errors/ConfigurationError';

/** The shortest token a user may choose; `generateToken()` makes 64 characters. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * A console token as the console will compare it: surrounding whitespace (a trailing
 * newline from a secrets file, say) is trimmed; a token that could never match is refused —
 * one with whitespace or characters outside printable ASCII inside (`Authorization: Bearer`
 * carries one word of header text), or one shorter than {@link MIN_TOKEN_LENGTH}.
 *
 * @param where - names the setting in the error: `'--token'`, `'createConsoleHandler(): token'`.
 * @throws {@link ConfigurationError} naming `where` and what is wrong (never the token).
 *
 * @example
 * ```ts
 * consoleToken(`${process.env.WAYMARK_CONSOLE_TOKEN}`, 'WAYMARK_CONSOLE_TOKEN');
 * ```
 */
export function consoleToken(token: unknown, where: string): string {
  if (typeof token !== 'string' || token.trim() === '') {
    throw new ConfigurationError(`${where} must be a non-empty string`);
  }
  const trimmed = token.trim();
  if (/\s/.test(trimmed)) {
    throw new ConfigurationError(
      `${where} must not contain whitespace: a request can never carry it in ` +
        '"Authorization: Bearer <token>"',
    );
  }
  if (!/^[\x21-\x7e]+$/.test(trimmed)) {
    throw new ConfigurationError(
      `${where} must be printable ASCII: it travels in the Authorization header`,
    );
  }
  if (trimmed.length < MIN_TOKEN_LENGTH) {
    throw new ConfigurationError(
      `${where} must be at least ${MIN_TOKEN_LENGTH} characters long, got ${trimmed.length}; ` +
        'leave it out to have a random 64-character one generated',
    );
  }
  return trimmed;
}
