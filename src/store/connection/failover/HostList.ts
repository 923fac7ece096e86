import { ConfigurationError } from '../../../errors/ConfigurationError';

/** One `host:port` of a database URL's host list. */
export interface HostAddress {
  readonly host: string;
  readonly port: number;
}

/** Which hosts a PostgreSQL connection may use: libpq's `target_session_attrs`. */
export type TargetSessionAttrs = 'read-write' | 'any';

/** A database URL that lists several hosts, or asks PostgreSQL for a writable one. */
export interface HostList {
  readonly scheme: string;
  /** The hosts in the order given; connections try them in turn. */
  readonly hosts: readonly HostAddress[];
  /** PostgreSQL only; `read-write` unless the URL says `any`. */
  readonly targetSessionAttrs: TargetSessionAttrs;
  /**
   * The URL with only the first host and without `target_session_attrs`, for the
   * single-host parser to read credentials, database and the other parameters from.
   */
  readonly url: string;
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
const ANY_SCHEME = /[A-Za-z][A-Za-z0-9+.-]*:\/\//g;
const NAME =
  /^[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*$/;
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;
const DEFAULT_PORTS: Record<string, number> = {
  mysql: 3306,
  mariadb: 3306,
  postgres: 5432,
  postgresql: 5432,
};
const TARGET_SESSION_ATTRS = 'target_session_attrs';
const EXAMPLE: Record<string, string> = {
  mysql: 'mysql://user@h1:3311,h2:3312,h3:3313/db',
  postgres: 'postgres://user@h1:5433,h2:5434/db?target_session_attrs=read-write',
};

/**
 * Reads the host list of a MySQL/MariaDB or PostgreSQL URL written in libpq's form,
 * `scheme://user:pass@h1:port1,h2:port2/db?…`. Undefined for a URL with one host and no
 * `target_session_attrs` (the single-host parser handles it alone). A malformed host, an
 * empty entry, a second scheme inside the list or an unknown `target_session_attrs` is a
 * {@link ConfigurationError} naming it; passwords never appear in the message.
 *
 * @example
 * ```ts
 * parseHostList('mysql://root@127.0.0.1:3311,127.0.0.1:3312/test')?.hosts;
 * // [{ host: '127.0.0.1', port: 3311 }, { host: '127.0.0.1', port: 3312 }]
 * ```
 */
export function parseHostList(url: string): HostList | undefined {
  const schemeMatch = SCHEME.exec(url);
  if (!schemeMatch) return undefined;
  const scheme = schemeMatch[1].toLowerCase();
  const defaultPort = DEFAULT_PORTS[scheme];
  if (defaultPort === undefined) return undefined;
  const shown = redactedUrl(url);
  const beforeQuery = url.split('?', 1)[0];
  const schemes = [...new Set((beforeQuery.match(ANY_SCHEME) ?? []).map((s) => s.toLowerCase()))];
  if (schemes.length > 1 || (beforeQuery.match(ANY_SCHEME) ?? []).length > 1) {
    const what =
      schemes.length > 1
        ? `mixes the schemes ${schemes.join(' and ')}`
        : `repeats ${schemes[0]} inside its host list`;
    throw new ConfigurationError(
      `database URL "${shown}" ${what}: name the scheme once, then the hosts, e.g. ${exampleFor(scheme)}`,
    );
  }
  const afterScheme = url.slice(schemeMatch[0].length);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const rest = authorityEnd === -1 ? '' : afterScheme.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? '' : authority.slice(0, at + 1);
  const entries = authority.slice(at + 1).split(',');
  const { path, query, targetSessionAttrs } = splitQuery(rest, scheme, shown);
  if (entries.length === 1 && targetSessionAttrs === undefined) return undefined;
  const hosts = entries.map((entry, index) => parseHost(entry, index, defaultPort, scheme, shown));
  const first = formatHost(hosts[0]);
  return {
    scheme,
    hosts,
    targetSessionAttrs: targetSessionAttrs ?? 'read-write',
    url: `${scheme}://${userinfo}${first}${path}${query}`,
  };
}

/** `host:port`, with IPv6 addresses in brackets. */
export function formatHost(address: HostAddress): string {
  return `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}

function parseHost(
  entry: string,
  index: number,
  defaultPort: number,
  scheme: string,
  shown: string,
): HostAddress {
  const refuse = (why: string): never => {
    throw new ConfigurationError(
      `database URL "${shown}" lists a malformed host ${entry === '' ? `(entry ${index + 1} is empty)` : `"${entry}" (${why})`}; ` +
        `expected host[:port] entries separated by commas, e.g. ${exampleFor(scheme)}`,
    );
  };
  if (entry === '') return refuse('empty');
  const bracketed = entry.startsWith('[');
  const colon = bracketed ? entry.indexOf(']:') + 1 : entry.lastIndexOf(':');
  const hasPort = bracketed ? colon > 0 : colon !== -1;
  const host = hasPort ? entry.slice(0, colon) : entry;
  const portText = hasPort ? entry.slice(colon + 1) : undefined;
  if (bracketed ? !IPV6.test(host) : !NAME.test(host)) {
    return refuse(host === '' ? 'no host name' : `"${host}" is not a host name or address`);
  }
  let port = defaultPort;
  if (portText !== undefined) {
    port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
    if (!(port >= 1 && port <= 65_535)) return refuse(`port "${portText}" is not 1-65535`);
  }
  return { host: bracketed ? host.slice(1, -1) : host, port };
}

/** Takes `target_session_attrs` out of the query, checking it; keeps every other parameter. */
function splitQuery(
  rest: string,
  scheme: string,
  shown: string,
): { path: string; query: string; targetSessionAttrs: TargetSessionAttrs | undefined } {
  const mark = rest.indexOf('?');
  if (mark === -1) return { path: rest, query: '', targetSessionAttrs: undefined };
  const path = rest.slice(0, mark);
  const params = new URLSearchParams(rest.slice(mark + 1));
  const value = params.get(TARGET_SESSION_ATTRS);
  if (value === null) return { path, query: rest.slice(mark), targetSessionAttrs: undefined };
  if (!scheme.startsWith('postgres')) {
    throw new ConfigurationError(
      `database URL "${shown}" has ${TARGET_SESSION_ATTRS}, a PostgreSQL parameter; a ${scheme}:// URL ` +
        'fails over to the next listed host by itself',
    );
  }
  if (value !== 'read-write' && value !== 'any') {
    throw new ConfigurationError(
      `database URL "${shown}" has ${TARGET_SESSION_ATTRS}=${value}; waymark accepts read-write ` +
        '(connect to the host that accepts writes, the default) or any',
    );
  }
  params.delete(TARGET_SESSION_ATTRS);
  const remaining = params.toString();
  return { path, query: remaining ? `?${remaining}` : '', targetSessionAttrs: value };
}

function exampleFor(scheme: string): string {
  return scheme.startsWith('postgres') ? EXAMPLE.postgres : EXAMPLE.mysql;
}

/** The URL with the password of its user info replaced by `***`. */
function redactedUrl(url: string): string {
  return url.replace(/^([^:]+:\/\/[^:/@,]*:)[^@]*@/, '$1***@');
}
