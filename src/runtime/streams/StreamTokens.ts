import { createHmac, randomBytes } from 'node:crypto';
import { ConfigurationError } from '../../errors/ConfigurationError';
import { InvalidArgumentError } from '../../errors/InvalidArgumentError';
import type { Clock } from '../../ground/Clock';
import { parseDuration } from '../../ground/Duration';
import { assertRunId } from '../../model/identifiers';
import type { StreamTokenOptions } from './StreamEntry';
import { assertStreamName } from './Streams';

/** The shortest `streamTokenSecret` accepted. */
export const MIN_STREAM_TOKEN_SECRET_LENGTH = 32;

/** Bumped when the signed text changes, so an old token cannot pass for a new kind. */
const PURPOSE = 'waymark-stream-token-v1';

/**
 * Signs read-only tokens for one run's stream: `<expiry>.<signature>`, the expiry in whole
 * seconds since the epoch and the signature an HMAC-SHA256 over the run id, the stream name
 * and the expiry (as JSON, so `"po-1" + "llm"` and `"po-1l" + "lm"` differ). The token
 * names neither: whoever checks it (`verifyStreamToken`) signs the run and stream it is
 * presented for with the token's expiry, and compares.
 *
 * @example
 * ```ts
 * const tokens = StreamTokens.of(undefined, realClock); // a secret of this process
 * tokens.sign('po-1', 'llm', { expiresIn: '15m' }); // '1796300100.q3…'
 * ```
 */
export class StreamTokens {
  private constructor(
    private readonly secret: Buffer,
    private readonly clock: Clock,
  ) {}

  /**
   * Tokens signed with `secret` (`Waymark.create({ streamTokenSecret })`), or with 32 random
   * bytes of this process when it is undefined; `expiresIn` counts from `clock`'s now.
   * @throws {@link ConfigurationError} for a secret shorter than 32 characters.
   */
  static of(secret: unknown, clock: Clock): StreamTokens {
    if (secret === undefined) return new StreamTokens(randomBytes(32), clock);
    if (typeof secret !== 'string' || secret.length < MIN_STREAM_TOKEN_SECRET_LENGTH) {
      throw new ConfigurationError(
        `Waymark.create(): streamTokenSecret must be a string of at least ` +
          `${MIN_STREAM_TOKEN_SECRET_LENGTH} characters (e.g. 32 random bytes, hex)`,
      );
    }
    return new StreamTokens(Buffer.from(secret, 'utf8'), clock);
  }

  /** A token that reads stream `name` of run `runId` until it expires. */
  sign(runId: string, name: string, options: StreamTokenOptions = {}): string {
    assertRunId(runId, 'streamToken(): runId');
    assertStreamName(name, 'streamToken(): name');
    const expiresAt = Math.ceil(this.expiryMs(options) / 1000);
    const signature = createHmac('sha256', this.secret)
      .update(JSON.stringify([PURPOSE, runId, name, expiresAt]), 'utf8')
      .digest('base64url');
    return `${expiresAt}.${signature}`;
  }

  private expiryMs({ expiresIn, expiresAt }: StreamTokenOptions): number {
    if (expiresAt === undefined) {
      return this.clock.now() + parseDuration(expiresIn ?? '1h', 'streamToken(): expiresIn');
    }
    if (expiresIn !== undefined || !(expiresAt instanceof Date) || isNaN(expiresAt.getTime())) {
      throw new InvalidArgumentError(
        'streamToken(): expiresAt',
        'must be a valid Date, and not given with expiresIn',
      );
    }
    return expiresAt.getTime();
  }
}
