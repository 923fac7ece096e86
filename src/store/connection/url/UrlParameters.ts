import { ConfigurationError } from '../../../errors/ConfigurationError';
import type { UrlParameter } from './ServerUrl';

/**
 * The `?key=value` parameters of one database URL, read one name at a time, so that
 * whatever no reader asked for can be refused by name: a misspelt `sslmode` must not
 * silently connect in cleartext.
 */
export class UrlParameters {
  private readonly unread: Map<string, string>;

  /** @param where - how the URL is shown in messages (credentials already masked) */
  constructor(
    parameters: readonly UrlParameter[],
    private readonly where: string,
  ) {
    this.unread = new Map();
    for (const { key, value } of parameters) {
      if (this.unread.has(key)) {
        throw new ConfigurationError(`database URL "${where}" gives parameter "${key}" twice`);
      }
      this.unread.set(key, value);
    }
  }

  /**
   * The value of the parameter spelt any of `names` (spellings of one parameter), or
   * undefined when absent. Two spellings at once are refused.
   */
  take(...names: string[]): { name: string; value: string } | undefined {
    const found = names.filter((name) => this.unread.has(name));
    if (found.length > 1) {
      throw new ConfigurationError(
        `database URL "${this.where}" gives one parameter twice, as ${found.map((n) => `"${n}"`).join(' and ')}`,
      );
    }
    if (found.length === 0) return undefined;
    const value = this.unread.get(found[0])!;
    this.unread.delete(found[0]);
    return { name: found[0], value };
  }

  /** A parameter naming a file, e.g. `sslrootcert=/etc/ssl/ca.pem`. */
  takeFile(...names: string[]): { parameter: string; path: string } | undefined {
    const taken = this.take(...names);
    return taken && { parameter: taken.name, path: taken.value };
  }

  /** A boolean parameter: `true`/`1` or `false`/`0` (as node-postgres reads `ssl`). */
  takeFlag(name: string): { asked: string; on: boolean } | undefined {
    const taken = this.take(name);
    if (taken === undefined) return undefined;
    const lower = taken.value.toLowerCase();
    if (lower !== 'true' && lower !== '1' && lower !== 'false' && lower !== '0') {
      throw this.invalid(name, taken.value, 'true or false');
    }
    return { asked: `${name}=${taken.value}`, on: lower === 'true' || lower === '1' };
  }

  /** A `ConfigurationError` about one parameter's value, naming it. */
  invalid(name: string, value: string, expected: string): ConfigurationError {
    return new ConfigurationError(
      `database URL "${this.where}" has ${name}=${value}; expected ${expected}`,
    );
  }

  /** Refuses whatever parameters were not read, naming them and what is accepted. */
  assertAllRead(accepted: readonly string[]): void {
    const unknown = [...this.unread.keys()];
    if (unknown.length === 0) return;
    const names = unknown.map((key) => `"${key}"`).join(', ');
    throw new ConfigurationError(
      `database URL "${this.where}" has unknown parameter${unknown.length > 1 ? 's' : ''} ${names}; ` +
        `this URL takes only ${accepted.join(', ')}`,
    );
  }
}
