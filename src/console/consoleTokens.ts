import { createHash } from 'node:crypto';
import { ConfigurationError } from '../errors/ConfigurationError';
import { CONSOLE_ROLES, isConsoleRole, type ConsoleRole } from './ConsoleRole';

/**
 * One console token as the console keeps it: only its SHA-256 hash, the role it grants, and
 * the name the run's history records for what it decides (`decidedBy`).
 */
export interface ConsoleTokenHash {
  role: ConsoleRole;
  /** SHA-256 of the token (its UTF-8 bytes, trimmed), 64 hex digits. */
  sha256: string;
  /** Who holds it, e.g. `dana` or `support-desk`: letters, digits, `.`, `_`, `@`, `-`. */
  name: string;
}

const NAME = /^[A-Za-z0-9._@-]{1,64}$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * The SHA-256 hex of a console token, as {@link ConsoleTokenHash.sha256} wants it (the same
 * as `printf %s "$TOKEN" | sha256sum`).
 *
 * @example
 * ```ts
 * const tokens = [{ role: 'viewer', sha256: hashConsoleToken(generateToken()), name: 'desk' }];
 * ```
 */
export function hashConsoleToken(token: string): string {
  return createHash('sha256').update(token.trim(), 'utf8').digest('hex');
}

/**
 * Console tokens written one per line (or separated by spaces or commas, as an environment
 * variable holds them) as `role:sha256hex[:name]`; `#` starts a comment. A line without a
 * name is named after its role and the hash's first 8 digits (`viewer-3f2a9c1d`).
 *
 * @param where - names the source in the error: `'--tokens-file ./tokens'`.
 * @throws `ConfigurationError` naming `where`, the line and what is wrong.
 *
 * @example
 * ```ts
 * parseConsoleTokens('operator:9f86d0…0a08:dana\nviewer:2c26b4…e7ae', 'WAYMARK_CONSOLE_TOKENS');
 * ```
 */
export function parseConsoleTokens(text: string, where: string): ConsoleTokenHash[] {
  const tokens: ConsoleTokenHash[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const words = line
      .replace(/#.*$/, '')
      .split(/[\s,]+/)
      .filter((word) => word !== '');
    for (const word of words) {
      tokens.push(parseEntry(word, `${where}, line ${index + 1}`));
    }
  });
  return tokens;
}

/**
 * Checks entries given in code (`tokens` of `createConsoleHandler`), filling in missing
 * names as {@link parseConsoleTokens} does; hashes are kept in lower case.
 */
export function checkConsoleTokens(tokens: unknown, where: string): ConsoleTokenHash[] {
  if (!Array.isArray(tokens)) {
    throw new ConfigurationError(`${where} must be an array of { role, sha256, name }`);
  }
  return tokens.map((token: unknown, index) => {
    const { role, sha256, name } = (token ?? {}) as Partial<Record<string, unknown>>;
    return entry(role, sha256, name, `${where}[${index}]`);
  });
}

function parseEntry(word: string, where: string): ConsoleTokenHash {
  const [role, sha256, name, ...rest] = word.split(':');
  if (rest.length > 0 || sha256 === undefined) {
    throw new ConfigurationError(
      `${where}: expected role:sha256hex[:name], got "${word.slice(0, 80)}"`,
    );
  }
  return entry(role, sha256, name, where);
}

function entry(role: unknown, sha256: unknown, name: unknown, where: string): ConsoleTokenHash {
  if (!isConsoleRole(role)) {
    throw new ConfigurationError(
      `${where}: role must be one of ${CONSOLE_ROLES.join(', ')}, got ${JSON.stringify(role)}`,
    );
  }
  if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
    throw new ConfigurationError(
      `${where}: the token must be given as its SHA-256 hash, 64 hex digits ` +
        '(printf %s "$TOKEN" | sha256sum)',
    );
  }
  const hash = sha256.toLowerCase();
  const named = name === undefined || name === '' ? `${role}-${hash.slice(0, 8)}` : name;
  if (typeof named !== 'string' || !NAME.test(named)) {
    throw new ConfigurationError(
      `${where}: the name must be 1 to 64 letters, digits, ".", "_", "@" or "-", got ${JSON.stringify(name)}`,
    );
  }
  return { role, sha256: hash, name: named };
}
