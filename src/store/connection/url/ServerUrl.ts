import { ConfigurationError } from '../../../errors/ConfigurationError';

/** One server a URL names. */
export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

/** One `?key=value` of a URL, decoded. */
export interface UrlParameter {
  readonly key: string;
  readonly value: string;
}

/**
 * A server URL taken apart: `scheme://[user[:password]@]host[:port][,host[:port]…]/database[?k=v&…]`.
 * `hosts` holds every server listed (a comma-separated list is parsed here; whoever builds
 * the connection decides what a list means).
 */
export interface ServerUrl {
  /** As written, lower case: `mysql`, `mariadb`, `postgres` or `postgresql`. */
  readonly scheme: string;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly hosts: readonly ServerAddress[];
  readonly database: string;
  readonly parameters: readonly UrlParameter[];
}

/**
 * The hosts of `hostList` (`host[:port],…`); a ConfigurationError when one is not. `masked`
 * is given when the URL has no user information: what looks like a port may then be a
 * password, so the error shows the masked URL and never repeats the list.
 */
function parseHosts(
  hostList: string,
  defaultPort: number,
  masked: string | undefined,
  shown: string,
): ServerAddress[] {
  const hosts = hostList === '' ? [] : hostList.split(',').map((h) => address(h, defaultPort));
  if (hosts.every((h) => h !== undefined)) return hosts;
  const detail =
    masked !== undefined
      ? 'what precedes the database is not "host" or "host:port"; if it holds a user and ' +
        'password, either "@host" is missing or the password holds a character such as "?" ' +
        'or "#" that must be percent-encoded (%3F, %23)'
      : `"${hostList}" is not a list of "host" or "host:port" (a port is a number from 1 to 65535)`;
  throw new ConfigurationError(`database URL "${masked ?? shown}" is malformed: ${detail}`);
}

/**
 * Takes a server URL apart without ever putting its password in an error. A password may
 * hold `@`, `/` or `:` unencoded (the user information ends at the last `@` before any `?`);
 * a malformed percent-encoding is reported as such, naming the part it is in.
 *
 * @example
 * ```ts
 * parseServerUrl('postgres://app:s3cret@db:5433/orders?sslmode=require', 5432).hosts;
 * // [{ host: 'db', port: 5433 }]
 * ```
 */
export function parseServerUrl(text: string, defaultPort: number): ServerUrl {
  const colon = text.indexOf(':');
  const scheme = text.slice(0, colon).toLowerCase();
  const masked = maskUnparsed(text);
  if (!text.startsWith('//', colon + 1)) {
    throw new ConfigurationError(
      `database URL "${masked}" must start with ${scheme}:// (two slashes after "${scheme}:")`,
    );
  }
  const rest = text.slice(colon + 3);
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = queryAt < 0 ? '' : rest.slice(queryAt + 1);
  const at = beforeQuery.lastIndexOf('@');
  const userInfo = at < 0 ? undefined : beforeQuery.slice(0, at);
  const afterUser = at < 0 ? beforeQuery : beforeQuery.slice(at + 1);
  const slash = afterUser.indexOf('/');
  const hostList = slash < 0 ? afterUser : afterUser.slice(0, slash);

  const colonInUser = userInfo?.indexOf(':') ?? -1;
  const rawUser = colonInUser < 0 ? userInfo : userInfo!.slice(0, colonInUser);
  const user = userInfo === undefined ? '' : `${rawUser}${colonInUser < 0 ? '' : ':***'}@`;
  // An `@` only after the `?` may end a password that holds a `?`: show none of it then.
  const shown =
    userInfo === undefined && query.includes('@')
      ? masked
      : `${scheme}://${user}${afterUser}${maskQuery(queryAt < 0 ? '' : `?${query}`)}`;
  const username =
    rawUser === undefined
      ? undefined
      : decodePart(rawUser, `the user name in database URL "${shown}"`) || undefined;
  const password =
    colonInUser < 0
      ? undefined
      : decodePart(userInfo!.slice(colonInUser + 1), `the password in database URL "${shown}"`);
  const database = decodePart(
    slash < 0 ? '' : afterUser.slice(slash + 1),
    `the database name in database URL "${shown}"`,
  );
  // Without an `@`, what looks like a port may be a password: never repeat it.
  const hosts = parseHosts(
    hostList,
    defaultPort,
    userInfo === undefined ? masked : undefined,
    shown,
  );
  if (hosts.length === 0 || database === '') {
    throw new ConfigurationError(
      `database URL "${shown}" must name a host and a database, e.g. ${scheme}://user@127.0.0.1:${defaultPort}/app`,
    );
  }
  return {
    scheme,
    username,
    password,
    hosts,
    database,
    parameters: parseQuery(query, shown),
  };
}

/**
 * How a parsed server URL may be shown: the password as `***`, and the value of any
 * parameter not in `shownParameters` as `***` too.
 */
export function describeServerUrl(url: ServerUrl, shownParameters: ReadonlySet<string>): string {
  const user =
    url.username === undefined && url.password === undefined
      ? ''
      : `${encodeURIComponent(url.username ?? '')}${url.password === undefined ? '' : ':***'}@`;
  const hosts = url.hosts
    .map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`)
    .join(',');
  const query = url.parameters
    .map(({ key, value }) => `${key}=${shownParameters.has(key) ? value : '***'}`)
    .join('&');
  return `${url.scheme}://${user}${hosts}/${url.database}${query === '' ? '' : `?${query}`}`;
}

/**
 * A URL that could not be parsed, with everything that may be a credential replaced by
 * `***`: whatever comes between the scheme and the last `@`, or, without an `@`, whatever
 * comes between the scheme and the first `/` of the path.
 */
export function maskUnparsed(text: string): string {
  const colon = text.indexOf(':');
  if (colon <= 0) return '***';
  const scheme = text.slice(0, colon + 1);
  const slashes = text.startsWith('//', colon + 1) ? '//' : '';
  const rest = text.slice(scheme.length + slashes.length);
  const at = rest.lastIndexOf('@');
  if (at >= 0) return `${scheme}${slashes}***${maskQuery(rest.slice(at))}`;
  const slash = rest.indexOf('/', rest.startsWith('/') ? 1 : 0);
  return `${scheme}${slashes}***${slash < 0 ? '' : maskQuery(rest.slice(slash))}`;
}

/** `text` with the value of every `?key=value` after its first `?` as `***`. */
function maskQuery(text: string): string {
  const question = text.indexOf('?');
  if (question < 0) return text;
  return text.slice(0, question) + text.slice(question).replace(/([?&][^=&]*=)[^&]*/g, '$1***');
}

function address(text: string, defaultPort: number): ServerAddress | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(text);
  if (!match) return undefined;
  const port = match[3] === undefined ? defaultPort : Number(match[3]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: match[1] ?? match[2], port };
}

function parseQuery(query: string, shown: string): UrlParameter[] {
  if (query === '') return [];
  return query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawKey = equals < 0 ? pair : pair.slice(0, equals);
      const key = decodePart(rawKey, `a parameter name in database URL "${shown}"`);
      const value = equals < 0 ? '' : pair.slice(equals + 1);
      return { key, value: decodePart(value, `parameter "${key}" in database URL "${shown}"`) };
    });
}

/** Percent-decodes one part of a URL; `where` names the part (never its text) in the error. */
function decodePart(text: string, where: string): string {
  try {
    return decodeURIComponent(text);
  } catch (cause) {
    throw new ConfigurationError(
      `${where} has a malformed percent-encoding: each "%" must start an escape such as %40 ` +
        '(two hex digits, forming UTF-8); write a "%" itself as %25',
      { cause },
    );
  }
}
