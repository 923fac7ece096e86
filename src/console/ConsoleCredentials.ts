import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ConfigurationError } from '../errors/ConfigurationError';
import { consoleToken } from './consoleToken';
import type { ConsoleRole } from './ConsoleRole';
import { checkConsoleTokens, hashConsoleToken, type ConsoleTokenHash } from './consoleTokens';

/** Who made a console API call: the name and role of the token it carried. */
export interface ConsoleCaller {
  readonly name: string;
  readonly role: ConsoleRole;
}

/** The name the single `token` option goes by in the runs' history. */
export const SINGLE_TOKEN_NAME = 'console-token';

/**
 * The tokens a console accepts, kept as SHA-256 hashes: the single `token` (an admin, as
 * it always could do everything) and the hashed `tokens` with their roles and names.
 *
 * @example
 * ```ts
 * const credentials = ConsoleCredentials.of({ tokens }, 'createConsoleHandler()');
 * const caller = credentials.identify(req); // undefined: 401
 * ```
 */
export class ConsoleCredentials {
  private readonly hashes: readonly { caller: ConsoleCaller; digest: Buffer }[];

  private constructor(tokens: readonly ConsoleTokenHash[]) {
    this.hashes = tokens.map(({ name, role, sha256 }) => ({
      caller: Object.freeze({ name, role }),
      digest: Buffer.from(sha256, 'hex'),
    }));
  }

  /**
   * The credentials of `token` and `tokens`; at least one must be given.
   * @throws {@link ConfigurationError} for none, a malformed one, or one listed twice.
   */
  static of(options: { token?: unknown; tokens?: unknown }, where: string): ConsoleCredentials {
    const tokens =
      options.tokens === undefined ? [] : checkConsoleTokens(options.tokens, `${where}: tokens`);
    if (options.token !== undefined) {
      const token = consoleToken(options.token, `${where}: token`);
      tokens.push({ role: 'admin', sha256: hashConsoleToken(token), name: SINGLE_TOKEN_NAME });
    }
    if (tokens.length === 0) {
      throw new ConfigurationError(`${where}: give a token, or tokens with their roles`);
    }
    const seen = new Set<string>();
    for (const { sha256, name } of tokens) {
      if (seen.has(sha256)) {
        throw new ConfigurationError(`${where}: the token of "${name}" is listed twice`);
      }
      seen.add(sha256);
    }
    return new ConsoleCredentials(tokens);
  }

  /**
   * The caller whose token the request carries as `Authorization: Bearer <token>`, else
   * undefined. The token is hashed and compared with every hash, each in constant time, so
   * the time taken tells nothing about which one came closest.
   */
  identify(req: IncomingMessage): ConsoleCaller | undefined {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    return match ? this.identifyToken(match[1]) : undefined;
  }

  /**
   * The caller `token` belongs to, else undefined: as {@link identify}, for a token that came
   * some other way than a header (`waymark mcp` over stdio reads it from the environment).
   */
  identifyToken(token: string): ConsoleCaller | undefined {
    const presented = Buffer.from(hashConsoleToken(token), 'hex');
    let found: ConsoleCaller | undefined;
    for (const { caller, digest } of this.hashes) {
      if (timingSafeEqual(presented, digest)) found = caller;
    }
    return found;
  }
}
