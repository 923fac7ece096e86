import { ConfigurationError } from '../../../errors/ConfigurationError';
import type { TlsMode, TlsRequest } from './TlsRequest';
import type { UrlParameters } from './UrlParameters';

const MODES: readonly TlsMode[] = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'];

/** The TLS parameters a PostgreSQL URL accepts. */
export const POSTGRES_TLS_PARAMETERS = ['sslmode', 'ssl', 'sslrootcert', 'sslcert', 'sslkey'];

/**
 * The TLS a PostgreSQL URL asks for, read as libpq reads it: `sslmode` (`disable`,
 * `prefer`, `require`, `verify-ca`, `verify-full`), `sslrootcert` (a CA file, or `system`),
 * `sslcert` and `sslkey`; `require` with `sslrootcert` verifies the chain, as in libpq.
 * `ssl=true` (node-postgres, JDBC) means `verify-full`, `ssl=false` means `disable`.
 * Undefined when the URL says nothing about TLS (then there is none, as before).
 */
export function postgresTlsRequest(params: UrlParameters, where: string): TlsRequest | undefined {
  const sslmode = params.take('sslmode');
  const ssl = params.takeFlag('ssl');
  const ca = params.takeFile('sslrootcert');
  const cert = params.takeFile('sslcert');
  const key = params.takeFile('sslkey');
  if (sslmode && ssl) {
    throw new ConfigurationError(
      `database URL "${where}" gives both sslmode and ssl; give one (sslmode=verify-full is what ssl=true means)`,
    );
  }
  let mode: TlsMode;
  let asked: string;
  if (sslmode) {
    mode = sslmode.value.toLowerCase() as TlsMode;
    asked = `sslmode=${sslmode.value}`;
    if (!MODES.includes(mode)) throw params.invalid('sslmode', sslmode.value, MODES.join(', '));
  } else if (ssl) {
    [mode, asked] = [ssl.on ? 'verify-full' : 'disable', ssl.asked];
  } else if (ca) {
    [mode, asked] = ['verify-ca', `sslrootcert=${ca.path}`];
  } else if (cert ?? key) {
    throw new ConfigurationError(
      `database URL "${where}" names ${(cert ?? key)!.parameter} but no sslmode; add sslmode=verify-full (or verify-ca, require)`,
    );
  } else return undefined;
  if (mode === 'require' && ca) mode = 'verify-ca';
  return { mode, asked, ca, cert, key };
}
