import { ConfigurationError } from '../../../errors/ConfigurationError';
import type { TlsMode, TlsRequest } from './TlsRequest';
import type { UrlParameters } from './UrlParameters';

/** MySQL's `ssl-mode` values and the libpq mode each one is. */
const MODES: ReadonlyMap<string, TlsMode> = new Map([
  ['DISABLED', 'disable'],
  ['PREFERRED', 'prefer'],
  ['REQUIRED', 'require'],
  ['VERIFY_CA', 'verify-ca'],
  ['VERIFY_IDENTITY', 'verify-full'],
]);

/** The TLS parameters a MySQL or MariaDB URL accepts (each also with `_` for `-`). */
export const MYSQL_TLS_PARAMETERS = ['ssl-mode', 'ssl', 'ssl-ca', 'ssl-cert', 'ssl-key'];

/**
 * The TLS a MySQL or MariaDB URL asks for, named as the `mysql` client's options are:
 * `ssl-mode` (`DISABLED`, `PREFERRED`, `REQUIRED`, `VERIFY_CA`, `VERIFY_IDENTITY`, any case),
 * `ssl-ca`, `ssl-cert`, `ssl-key` — or with `_` for `-`, as in an option file. `ssl-ca`
 * without `ssl-mode`, or with `REQUIRED`, verifies the chain (`VERIFY_CA`). `ssl=true`
 * means `VERIFY_IDENTITY`, `ssl=false` means `DISABLED`. Undefined when the URL says
 * nothing about TLS (then there is none, as before).
 */
export function mysqlTlsRequest(params: UrlParameters, where: string): TlsRequest | undefined {
  const sslMode = params.take('ssl-mode', 'ssl_mode');
  const ssl = params.takeFlag('ssl');
  const ca = params.takeFile('ssl-ca', 'ssl_ca');
  const cert = params.takeFile('ssl-cert', 'ssl_cert');
  const key = params.takeFile('ssl-key', 'ssl_key');
  if (sslMode && ssl) {
    throw new ConfigurationError(
      `database URL "${where}" gives both ${sslMode.name} and ssl; give one (ssl-mode=VERIFY_IDENTITY is what ssl=true means)`,
    );
  }
  let mode: TlsMode;
  let asked: string;
  if (sslMode) {
    const known = MODES.get(sslMode.value.toUpperCase());
    if (known === undefined) {
      throw params.invalid(sslMode.name, sslMode.value, [...MODES.keys()].join(', '));
    }
    [mode, asked] = [known, `${sslMode.name}=${sslMode.value}`];
  } else if (ssl) {
    [mode, asked] = [ssl.on ? 'verify-full' : 'disable', ssl.asked];
  } else if (ca) {
    [mode, asked] = ['verify-ca', `${ca.parameter}=${ca.path}`];
  } else if (cert ?? key) {
    throw new ConfigurationError(
      `database URL "${where}" names ${(cert ?? key)!.parameter} but no ssl-mode; add ssl-mode=VERIFY_IDENTITY (or VERIFY_CA, REQUIRED)`,
    );
  } else return undefined;
  if (mode === 'require' && ca) mode = 'verify-ca';
  return { mode, asked, ca, cert, key };
}
